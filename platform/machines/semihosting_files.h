// SPDX-License-Identifier: Apache-2.0
//
// The host files semihosting gives a guest of the virt machine
// (docs/FIRMWARE.md, "Semihosting"): those of one directory the user names
// (the machine's "semihosting_dir", -pmvp-semihosting-dir), and no other.
// A guest's name is relative to it, without "..", and must stay inside it
// once symbolic links are followed. Without SystemC or Unicorn: the ISS
// reads and writes the guest's buffers.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

namespace pmvp::soc::virt {

class SemihostingFiles {
public:
    // `dir` empty: no file is given (every SYS_OPEN fails with EACCES).
    explicit SemihostingFiles(std::string dir = "") : dir_(std::move(dir)) {}
    ~SemihostingFiles();
    SemihostingFiles(const SemihostingFiles &) = delete;
    SemihostingFiles &operator=(const SemihostingFiles &) = delete;

    static constexpr uint64_t kFirstHandle = 4;  // 1 to 3: the console's
    // Each call returns -1 with the guest's errno in *err when it fails.
    // SYS_OPEN of `name`, mode 0 to 11 (ISO C's "r", "rb", "r+", ... "a+b"):
    // a handle.
    int64_t open(const std::string &name, uint64_t mode, uint64_t *err);
    bool has(uint64_t handle) const { return files_.count(handle) != 0; }
    int64_t close(uint64_t handle, uint64_t *err);
    int64_t read(uint64_t handle, void *to, uint64_t n, uint64_t *err);           // the bytes read
    int64_t write(uint64_t handle, const void *from, uint64_t n, uint64_t *err);  // the bytes written
    int64_t seek(uint64_t handle, uint64_t position, uint64_t *err);
    int64_t length(uint64_t handle, uint64_t *err);
    int64_t remove(const std::string &name, uint64_t *err);
    bool any_open() const { return !files_.empty(); }

private:
    std::string resolve(const std::string &name, uint64_t *err) const;  // empty: refused
    std::FILE *file(uint64_t handle, uint64_t *err) const;
    std::string dir_;
    std::map<uint64_t, std::FILE *> files_;
    uint64_t next_ = kFirstHandle;
};

}  // namespace pmvp::soc::virt
