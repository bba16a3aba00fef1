// SPDX-License-Identifier: Apache-2.0
//
// The PMU and AMU frames: a guest's load or store of them, one TLM access
// through the SoC's bus at its instruction's instant.

#include "aarch64_iss.h"

namespace pmvp::soc {

// Whether a load at `address` reads PMU.PMCCNTR_EL0 (or a half of it) in
// the frame of one of this core's PEs, which cycle_reads_first may read
// before the instructions before it are told, as it lets an MRS.
bool Aarch64Iss::reads_own_pmccntr(uint64_t address) const
{
    const uint64_t first = kFramesBase + threads.front().g * kPeWindow;
    if (!monitors_ || address < first || address >= first + threads.size() * kPeWindow)
        return false;
    const uint32_t in_frame = (uint32_t)((address - first) % kPeWindow);  // the PMU frame leads the window
    return in_frame == pmccntr_ || in_frame == pmccntr_ + 4;
}

void on_frame_access(uc_engine *, uc_mem_type type, uint64_t address, int size, int64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    uint64_t before = iss.retired_before_access(t);
    bool write = type == UC_MEM_WRITE;
    if (!(t.cycle_reads_first && !write && iss.reads_own_pmccntr(address)))
        iss.tell_retired(t, before);
    // One beat on the platform's bus (BUS_ACCESS), told with its
    // instruction's events.
    iss.occur(t, a64::BUS_ACCESS);
    iss.occur(t, write ? a64::BUS_ACCESS_WR : a64::BUS_ACCESS_RD);
    uint64_t data = write ? (uint64_t)value : 0;
    tlm::tlm_generic_payload &gp = iss.frame_gp;  // one for every access: no construction each time
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(address);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&data));
    gp.set_data_length((unsigned)size);
    gp.set_streaming_width((unsigned)size);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = iss.offset(iss.time_of(t, before));
    if (iss.monitors_)
        iss.guest_.bus->b_transport(gp, delay);
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
        t.result.bus_errors++;  // an error response reads as zero; a write is lost
        data = 0;
    }
    const uint64_t at = address - kFramesBase;
    if (!write && at + (uint64_t)size <= iss.guest_.frames_size) {  // (one reaching beyond faults)
        if (size == 4)  // a register's 32 bits, the common case, as one move
            std::memcpy(iss.guest_.frames + at, &data, 4);
        else
            std::memcpy(iss.guest_.frames + at, &data, (size_t)size);
    } else if (write)
        iss.stop(t);  // the monitors changed: limits anew
}

}  // namespace pmvp::soc
