// Internal: the code cache's checked directory (cache_directory.hpp).
#include "cache_directory.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace cubridge::compiler_detail {
namespace {

constexpr const char* kSecretName = "secret";

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

std::string hex_of(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Opens `name` in `dir` for reading without following a link or blocking on a FIFO; the file must be a
// regular file of this user no larger than max_bytes. Returns its bytes.
std::optional<std::string> read_regular(int dir, const char* name, std::size_t max_bytes, struct stat* st) {
  Fd fd(::openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0 || ::fstat(fd.get(), st) != 0) return std::nullopt;
  if (!S_ISREG(st->st_mode) || st->st_uid != ::geteuid() || static_cast<std::uint64_t>(st->st_size) > max_bytes)
    return std::nullopt;
  std::string data(static_cast<std::size_t>(st->st_size), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd.get(), data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // shrank while read: torn, a miss
    got += static_cast<std::size_t>(n);
  }
  char extra;
  ssize_t more = ::read(fd.get(), &extra, 1);
  if (more != 0) return std::nullopt;  // grew while read
  return data;
}

// Writes `bytes` to a new file with a random name beside `final_name`; returns that name or nullopt.
std::optional<std::string> write_temporary(int dir, std::string_view final_name, std::string_view bytes) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::optional<std::string> rnd = random_bytes(8);
    if (!rnd) return std::nullopt;
    std::string name = std::string(final_name) + ".tmp." + hex_of(*rnd);
    int raw = ::openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (raw < 0 && errno == EEXIST) continue;
    if (raw < 0) return std::nullopt;
    Fd fd(raw);
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ::unlinkat(dir, name.c_str(), 0);
        return std::nullopt;
      }
      done += static_cast<std::size_t>(n);
    }
    return name;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> random_bytes(std::size_t n) {
  std::string out(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::getrandom(out.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return std::nullopt;
    got += static_cast<std::size_t>(r);
  }
  return out;
}

CacheDirectory::CacheDirectory(const std::filesystem::path& path, bool create, Access access) : path_(path.string()) {
  const bool source_tree = access == Access::source_tree;
  if (create) {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (::mkdir(path_.c_str(), source_tree ? 0755 : 0700) != 0 && errno != EEXIST) {
      refuse(std::string("cannot be created (") + std::strerror(errno) + ")");
      return;
    }
  }
  int fd = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    missing_ = errno == ENOENT;
    refuse(errno == ELOOP || errno == ENOTDIR ? std::string("is a symbolic link or not a directory")
                                              : std::string("cannot be opened (") + std::strerror(errno) + ")");
    return;
  }
  Fd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
    refuse("is not a directory");
    return;
  }
  if (st.st_uid != ::geteuid()) {
    refuse("is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::geteuid()) + ")");
    return;
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    refuse("is writable by group or others (mode " + octal_mode(st.st_mode) +
           (source_tree ? "; anyone who may write there could plant code: chmod go-w it)"
                        : "; a per-user cache must be 0700: chmod 700 it, or point CUBRIDGE_CACHE_DIR elsewhere)"));
    return;
  }
  if (!source_tree && (st.st_mode & 077) != 0 && ::fchmod(fd, st.st_mode & 0700) != 0) {
    refuse("has mode " + octal_mode(st.st_mode) + " and cannot be narrowed to 0700 (" + std::strerror(errno) + ")");
    return;
  }
  fd_ = ::dup(fd);  // `owned` closes the original
  if (fd_ < 0) refuse(std::string("cannot be opened (") + std::strerror(errno) + ")");
  else ::fcntl(fd_, F_SETFD, FD_CLOEXEC);
}

CacheDirectory::~CacheDirectory() {
  if (fd_ >= 0) ::close(fd_);
}

void CacheDirectory::refuse(std::string why) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  problem_ = "the code cache directory " + path_ + " " + why;
}

std::optional<std::string> CacheDirectory::read(std::string_view name, std::size_t max_bytes) const {
  if (fd_ < 0) return std::nullopt;
  struct stat st {};
  return read_regular(fd_, std::string(name).c_str(), max_bytes, &st);
}

bool CacheDirectory::write(std::string_view name, std::string_view bytes) const {
  if (fd_ < 0) return false;
  std::optional<std::string> tmp = write_temporary(fd_, name, bytes);
  if (!tmp) return false;
  if (::renameat(fd_, tmp->c_str(), fd_, std::string(name).c_str()) != 0) {
    ::unlinkat(fd_, tmp->c_str(), 0);
    return false;
  }
  return true;
}

bool CacheDirectory::remove(std::string_view name) const {
  return fd_ >= 0 && ::unlinkat(fd_, std::string(name).c_str(), 0) == 0;
}

std::optional<std::string> CacheDirectory::read_secret() {
  struct stat st {};
  if (::fstatat(fd_, kSecretName, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) return std::nullopt;
  std::optional<std::string> bytes = read_regular(fd_, kSecretName, secret_size, &st);
  if (bytes && bytes->size() == secret_size && (st.st_mode & 077) == 0) return bytes;
  refuse("holds a file 'secret' that is not this user's 0600 key of " + std::to_string(secret_size) +
         " bytes (owner uid " + std::to_string(st.st_uid) + ", mode " + octal_mode(st.st_mode) + ", " +
         std::to_string(st.st_size) + " bytes; remove it to let cubridge make a new one)");
  return std::nullopt;
}

std::optional<std::string> CacheDirectory::secret(bool create) {
  if (fd_ < 0) return std::nullopt;
  if (std::optional<std::string> s = read_secret()) return s;
  if (fd_ < 0 || !create) return std::nullopt;
  // Written whole under a random name, then linked into place: a reader never sees a partial secret, and
  // link (unlike rename) does not replace a secret another process linked first.
  std::optional<std::string> fresh = random_bytes(secret_size);
  if (!fresh) return std::nullopt;
  std::optional<std::string> tmp = write_temporary(fd_, kSecretName, *fresh);
  if (!tmp) return std::nullopt;
  const bool linked = ::linkat(fd_, tmp->c_str(), fd_, kSecretName, 0) == 0;
  ::unlinkat(fd_, tmp->c_str(), 0);
  if (linked) return fresh;
  return read_secret();
}

}  // namespace cubridge::compiler_detail
