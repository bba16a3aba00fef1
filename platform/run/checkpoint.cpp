// SPDX-License-Identifier: Apache-2.0
#include "checkpoint.h"

#include "scenario.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <iterator>

namespace pmvp::soc {

namespace {
constexpr char kTag[8] = { 'P', 'M', 'V', 'P', 'S', 'O', 'C', '2' };
}

std::vector<uint8_t> Saver::file() const
{
    std::vector<uint8_t> f(8 + bytes_.size());
    std::memcpy(f.data(), kTag, 8);
    std::copy(bytes_.begin(), bytes_.end(), f.begin() + 8);
    pmvp::sc::put_u64(f, pmvp::sc::fnv1a(f.data(), f.size()));
    return f;
}

Loader::Loader(std::vector<uint8_t> file) : file_(std::move(file))
{
    if (file_.size() < 8 || std::memcmp(file_.data(), kTag, 8) != 0) {
        bool ours = file_.size() >= 7 && std::memcmp(file_.data(), kTag, 7) == 0;
        throw CheckpointError(ours ? "a pmvp-soc checkpoint of another format version (this pmvp-soc reads "
                                     "PMVPSOC2)"
                                   : "not a pmvp-soc checkpoint");
    }
    size_t at = file_.size() - 8;
    uint64_t sum = 0;
    if (file_.size() < 16 || !pmvp::sc::get_u64(file_.data(), file_.size(), &at, &sum))
        throw CheckpointError("the checkpoint is truncated");
    end_ = file_.size() - 8;
    if (sum != pmvp::sc::fnv1a(file_.data(), end_))
        throw CheckpointError("the checkpoint is corrupt or truncated (its checksum disagrees)");
}

uint64_t Loader::u64(const char *what)
{
    uint64_t v = 0;
    if (!pmvp::sc::get_u64(file_.data(), end_, &at_, &v))
        bad(what, "is missing: the checkpoint ends before it");
    return v;
}

size_t Loader::length(const char *what, size_t unit)
{
    uint64_t n = u64(what);
    if (n > (end_ - at_) / unit)
        bad(what, "is longer than what is left of the checkpoint");
    return (size_t)n;
}

void Loader::bad(const char *what, const char *how) const
{
    throw CheckpointError(std::string("the checkpoint's field ") + what + " " + how);
}

void Loader::end() const
{
    if (at_ != end_)
        throw CheckpointError("the checkpoint has " + std::to_string(end_ - at_) +
                              " bytes more than the run it describes");
}

void simulate(Checkpointed &platform, const CheckpointPlan &plan)
{
    auto at = [](pmvp_time t) { return sc_core::sc_time::from_value(t); };
    if (plan.resume) {
        platform.load(*plan.resume);
        plan.resume->end();
        sc_core::sc_start(at(plan.resume_at));
        platform.restore_monitors();
    }
    if (plan.save_at) {
        sc_core::sc_start(at(plan.save_at) - sc_core::sc_time_stamp());
        if (sc_core::sc_get_status() == sc_core::SC_STOPPED || sc_core::sc_time_stamp() != at(plan.save_at))
            throw CheckpointError("the run ended at " + time_text(sc_core::sc_time_stamp().value()) +
                                  ", before the instant of the checkpoint");
        Saver s;
        plan.header(s);
        platform.save(s);
        write_file(plan.save_path, s.file());
    }
    sc_core::sc_start();
}

std::vector<uint8_t> read_file(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        throw CheckpointError(path + ": cannot be read: " + std::strerror(errno));
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const std::vector<uint8_t> &bytes)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write((const char *)bytes.data(), (std::streamsize)bytes.size());
    f.close();
    if (!f)
        throw CheckpointError(path + ": cannot be written: " + std::strerror(errno));
}

}  // namespace pmvp::soc
