// SPDX-License-Identifier: Apache-2.0
//
// Arm semihosting over HLT #0xF000 on the virt machine (Arm IHI 0056): the
// console (SYS_WRITEC, SYS_WRITE0, and the handles SYS_OPEN gives for
// ":tt"), the exit, the command line (the machine's `append`), the heap
// and stack (SYS_HEAPINFO) and the clocks, all in simulated time: SYS_CLOCK
// and SYS_TIME count from the run's start (the epoch is the reset), and
// SYS_ELAPSED counts the System Counter's ticks (SYS_TICKFREQ). Host files
// are those of the machine's semihosting_dir (semihosting_files.h); without
// one, SYS_OPEN of any other name than ":tt" fails with EACCES. A failed
// operation sets the errno SYS_ERRNO returns.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

namespace sh = virt::semihosting;

bool is_tty(uint64_t handle)
{
    return handle >= sh::kTtyIn && handle <= sh::kTtyAppend;
}

// A failed operation's result: -1, with the errno SYS_ERRNO returns.
uint64_t failed(Aarch64Iss::Thread &t, uint64_t errno_value)
{
    t.semihosting_errno = errno_value;
    return (uint64_t)-1;
}

}  // namespace

void Aarch64Iss::semihosting(Thread &t, pmvp_time at)
{
    uint64_t op = 0, arg = 0;
    uc_reg_read(t.uc, UC_ARM64_REG_X0, &op);
    uc_reg_read(t.uc, UC_ARM64_REG_X1, &arg);
    uint64_t ret = semihosting_call(t, op, arg, at);
    uc_reg_write(t.uc, UC_ARM64_REG_X0, &ret);
}

// The operation's result; its parameter block of 64-bit words at `arg`.
// One case an operation, as in the specification's list: its length is
// the list's.
uint64_t Aarch64Iss::semihosting_call(Thread &t, uint64_t op, uint64_t arg, pmvp_time at)
{
    uint64_t w[4] = {};  // as many of its words as are readable (`words`)
    unsigned words = 0;
    while (words < 4 && read_virtual(t.uc, arg + 8 * words, &w[words], 8))
        words++;
    auto fail = [&](uint64_t errno_value) { return failed(t, errno_value); };
    switch (op) {
    case sh::kSysWritec:
    case sh::kSysWrite0:
        semihosting_console(t, arg, op == sh::kSysWritec ? 1 : 1u << 16, op == sh::kSysWrite0, at);
        return 0;
    case sh::kSysExit:
    case sh::kSysExitExtended: {
        // AArch64: x1 points to {reason, subcode}; an application's exit
        // gives its status, any other reason 1 (as QEMU).
        uint32_t status = words >= 2 && w[0] == sh::kApplicationExit ? (uint32_t)w[1] : 1;
        guest_.end_all(at, status, op == sh::kSysExit ? "semihosting SYS_EXIT" : "semihosting SYS_EXIT_EXTENDED");
        return 0;
    }
    case sh::kSysOpen:
    case sh::kSysRemove:
    case sh::kSysClose:
    case sh::kSysIstty:
    case sh::kSysWrite:
    case sh::kSysRead:
    case sh::kSysSeek:
    case sh::kSysFlen: return semihosting_handles(t, op, w, words, at);
    case sh::kSysClock: return (uint64_t)(at / 10000000000ull);  // centiseconds
    case sh::kSysTime: return (uint64_t)(at / 1000000000000ull);
    case sh::kSysErrno: return t.semihosting_errno;
    case sh::kSysElapsed: {  // x1 points to the 64-bit count
        const uint64_t ticks = counter_at(at);
        return write_virtual(t.uc, arg, &ticks, sizeof ticks) ? 0 : fail(sh::kEinval);
    }
    case sh::kSysTickfreq: return soc_.scenario.system_counter_hz;
    case sh::kSysGetCmdline: {  // {buffer, size}: the command line and its NUL, its length back in size
        const std::string &line = guest_.machine.append;
        if (words < 2 || line.size() + 1 > w[1] || !write_virtual(t.uc, w[0], line.c_str(), line.size() + 1))
            return fail(sh::kEinval);
        const uint64_t length = line.size();
        return write_virtual(t.uc, arg + 8, &length, sizeof length) ? 0 : fail(sh::kEinval);
    }
    case sh::kSysHeapinfo: {  // x1 points to the address of {heap base, heap limit, stack base, stack limit}
        uint64_t to = 0;
        if (!read_virtual(t.uc, arg, &to, sizeof to))
            return fail(sh::kEinval);
        const uint64_t top = kRamBase + guest_.ram_size, stack_limit = top - sh::kStackSize;
        uint64_t heap = std::max(guest_.image.high, guest_.dtb_at ? guest_.dtb_at + guest_.dtb.size() : 0);
        heap = std::min<uint64_t>((heap + 15) & ~15ull, stack_limit);
        const uint64_t info[4] = { heap, stack_limit, top, stack_limit };
        return write_virtual(t.uc, to, info, sizeof info) ? 0 : fail(sh::kEinval);
    }
    default:
        t.result.console += "[pmvp: semihosting operation " + std::to_string(op) + " is not implemented]\n";
        return fail(sh::kEinval);
    }
}

// The operations on handles: the console's (SYS_OPEN of ":tt") and host
// files' (semihosting_files.h); `w` holds the parameter block's first
// `words` words.
uint64_t Aarch64Iss::semihosting_handles(Thread &t, uint64_t op, const uint64_t *w, unsigned words, pmvp_time at)
{
    auto fail = [&](uint64_t errno_value) { return failed(t, errno_value); };
    switch (op) {
    case sh::kSysOpen: {  // {name, mode, length of the name}
        std::string name;
        if (words < 3 || !read_string(t, w[0], w[2], &name))
            return fail(sh::kEinval);
        if (name == ":tt")
            return w[1] < 4 ? sh::kTtyIn : w[1] < 8 ? sh::kTtyOut : sh::kTtyAppend;
        return (uint64_t)guest_.files->open(name, w[1], &t.semihosting_errno);
    }
    case sh::kSysRemove: {  // {name, length of the name}
        std::string name;
        if (words < 2 || !read_string(t, w[0], w[1], &name))
            return fail(sh::kEinval);
        return (uint64_t)guest_.files->remove(name, &t.semihosting_errno);
    }
    case sh::kSysClose:
        if (words >= 1 && is_tty(w[0]))
            return 0;
        return (uint64_t)guest_.files->close(words >= 1 ? w[0] : 0, &t.semihosting_errno);
    case sh::kSysIstty:
        if (words >= 1 && (is_tty(w[0]) || guest_.files->has(w[0])))
            return is_tty(w[0]) ? 1 : 0;
        return t.semihosting_errno = sh::kEbadf, 0;
    case sh::kSysWrite:  // {handle, buffer, length}: the bytes not written
        if (words < 3)
            return fail(sh::kEinval);
        if (w[0] == sh::kTtyOut || w[0] == sh::kTtyAppend) {
            semihosting_console(t, w[1], w[2], false, at);
            return 0;
        }
        return w[2] - semihosting_transfer(t, w[0], w[1], w[2], true);
    case sh::kSysRead:  // {handle, buffer, length}: the bytes not read (the console has no input: end of file)
        if (words < 3)
            return fail(sh::kEinval);
        if (w[0] == sh::kTtyIn)
            return w[2];
        return w[2] - semihosting_transfer(t, w[0], w[1], w[2], false);
    case sh::kSysSeek:  // {handle, position}
        if (words >= 1 && is_tty(w[0]))
            return fail(sh::kEspipe);
        return (uint64_t)guest_.files->seek(words >= 1 ? w[0] : 0, words >= 2 ? w[1] : 0, &t.semihosting_errno);
    case sh::kSysFlen:
        if (words >= 1 && is_tty(w[0]))
            return fail(sh::kEspipe);
        return (uint64_t)guest_.files->length(words >= 1 ? w[0] : 0, &t.semihosting_errno);
    default: return fail(sh::kEinval);
    }
}

// A guest's name of `n` bytes at `from` (at most 4 KiB); false if it cannot
// be read.
bool Aarch64Iss::read_string(Thread &t, uint64_t from, uint64_t n, std::string *s)
{
    if (n > 4096)
        return false;
    s->assign(n, '\0');
    return n == 0 || read_virtual(t.uc, from, s->data(), n);
}

// `n` bytes between the guest's buffer at `at_guest` and file `handle`, by
// 64 KiB: the bytes moved (fewer at the end of the file, at an error or
// where the buffer is not mapped).
uint64_t Aarch64Iss::semihosting_transfer(Thread &t, uint64_t handle, uint64_t at_guest, uint64_t n, bool to_file)
{
    std::vector<uint8_t> buf;
    uint64_t done = 0;
    while (done < n) {
        const uint64_t k = std::min<uint64_t>(n - done, 1u << 16);
        buf.resize(k);
        int64_t moved;
        if (to_file) {
            if (!read_virtual(t.uc, at_guest + done, buf.data(), k))
                return done;
            moved = guest_.files->write(handle, buf.data(), k, &t.semihosting_errno);
        } else {
            moved = guest_.files->read(handle, buf.data(), k, &t.semihosting_errno);
            if (moved > 0 && !write_virtual(t.uc, at_guest + done, buf.data(), (uint64_t)moved))
                return done;
        }
        if (moved <= 0)
            return done;
        done += (uint64_t)moved;
        if ((uint64_t)moved < k)
            return done;
    }
    return done;
}

// `n` bytes at `from` to the PE's console; a string's stop at its NUL.
void Aarch64Iss::semihosting_console(Thread &t, uint64_t from, uint64_t n, bool string, pmvp_time at)
{
    for (uint64_t a = from, k = 0; k < std::min<uint64_t>(n, 1u << 16); a++, k++) {  // at most 64 KiB
        uint8_t c = 0;
        if (!read_virtual(t.uc, a, &c, 1) || (string && c == 0))
            break;
        t.result.console += (char)c;
        guest_.console_put((char)c, at);
    }
}

}  // namespace pmvp::soc
