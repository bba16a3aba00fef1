// SPDX-License-Identifier: Apache-2.0
//
// The host files semihosting gives a guest (semihosting_files.h).
#include "semihosting_files.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <sys/stat.h>

namespace pmvp::soc::virt {

namespace {
// errno as the guest reads it through SYS_ERRNO: newlib's values, which are
// the host's for these; anything else is EIO.
constexpr uint64_t kEio = 5, kEbadf = 9, kEacces = 13, kEinval = 22;
uint64_t guest_errno(int e)
{
    return e > 0 && e <= 34 ? (uint64_t)e : kEio;
}

// The real path of `path` (its directory's, for a file not there yet), or
// empty.
std::string real(const std::string &path)
{
    char buf[PATH_MAX];
    if (realpath(path.c_str(), buf))
        return buf;
    const size_t slash = path.rfind('/');
    if (errno != ENOENT || slash == std::string::npos || !realpath(path.substr(0, slash).c_str(), buf))
        return "";
    return std::string(buf) + path.substr(slash);
}
}  // namespace

SemihostingFiles::~SemihostingFiles()
{
    for (auto &[handle, f] : files_)
        std::fclose(f);
}

std::string SemihostingFiles::resolve(const std::string &name, uint64_t *err) const
{
    *err = kEacces;
    if (dir_.empty() || name.empty() || name[0] == '/' || name.find('\0') != std::string::npos)
        return "";
    for (size_t a = 0; a <= name.size();) {  // no ".." component
        size_t b = std::min(name.find('/', a), name.size());
        if (name.compare(a, b - a, "..") == 0 && b - a == 2)
            return "";
        a = b + 1;
    }
    const std::string root = real(dir_), path = real(dir_ + "/" + name);
    if (root.empty() || path.size() <= root.size() || path.compare(0, root.size(), root) != 0 ||
        path[root.size()] != '/')
        return "";  // outside the directory once links are followed
    return path;
}

std::FILE *SemihostingFiles::file(uint64_t handle, uint64_t *err) const
{
    auto it = files_.find(handle);
    if (it == files_.end())
        *err = kEbadf;
    return it == files_.end() ? nullptr : it->second;
}

int64_t SemihostingFiles::open(const std::string &name, uint64_t mode, uint64_t *err)
{
    static const char *const modes[] = { "r", "rb", "r+", "r+b", "w", "wb", "w+", "w+b", "a", "ab", "a+", "a+b" };
    if (mode > 11) {
        *err = kEinval;
        return -1;
    }
    const std::string path = resolve(name, err);
    if (path.empty())
        return -1;
    struct stat st {};
    if (stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        *err = S_ISDIR(st.st_mode) ? 21 : kEacces;  // EISDIR; devices and pipes are not given
        return -1;
    }
    std::FILE *f = std::fopen(path.c_str(), modes[mode]);
    if (!f) {
        *err = guest_errno(errno);
        return -1;
    }
    files_[next_] = f;
    return (int64_t)next_++;
}

int64_t SemihostingFiles::close(uint64_t handle, uint64_t *err)
{
    std::FILE *f = file(handle, err);
    if (!f)
        return -1;
    files_.erase(handle);
    if (std::fclose(f) != 0) {
        *err = guest_errno(errno);
        return -1;
    }
    return 0;
}

int64_t SemihostingFiles::read(uint64_t handle, void *to, uint64_t n, uint64_t *err)
{
    std::FILE *f = file(handle, err);
    if (!f)
        return -1;
    std::fseek(f, 0, SEEK_CUR);  // a read after a write (ISO C)
    size_t got = std::fread(to, 1, n, f);
    if (got < n && std::ferror(f)) {
        *err = guest_errno(errno);
        std::clearerr(f);
        return -1;
    }
    return (int64_t)got;
}

int64_t SemihostingFiles::write(uint64_t handle, const void *from, uint64_t n, uint64_t *err)
{
    std::FILE *f = file(handle, err);
    if (!f)
        return -1;
    std::fseek(f, 0, SEEK_CUR);  // a write after a read (ISO C)
    size_t put = std::fwrite(from, 1, n, f);
    if (put < n || std::fflush(f) != 0) {
        *err = guest_errno(errno);
        std::clearerr(f);
        return put < n ? (int64_t)put : -1;
    }
    return (int64_t)put;
}

int64_t SemihostingFiles::seek(uint64_t handle, uint64_t position, uint64_t *err)
{
    std::FILE *f = file(handle, err);
    if (!f)
        return -1;
    if (position > (uint64_t)LONG_MAX || std::fseek(f, (long)position, SEEK_SET) != 0) {
        *err = position > (uint64_t)LONG_MAX ? kEinval : guest_errno(errno);
        return -1;
    }
    return 0;
}

int64_t SemihostingFiles::length(uint64_t handle, uint64_t *err)
{
    std::FILE *f = file(handle, err);
    struct stat st {};
    if (!f)
        return -1;
    std::fflush(f);
    if (fstat(fileno(f), &st) != 0) {
        *err = guest_errno(errno);
        return -1;
    }
    return (int64_t)st.st_size;
}

int64_t SemihostingFiles::remove(const std::string &name, uint64_t *err)
{
    const std::string path = resolve(name, err);
    if (path.empty())
        return -1;
    if (std::remove(path.c_str()) != 0) {
        *err = guest_errno(errno);
        return -1;
    }
    return 0;
}

}  // namespace pmvp::soc::virt
