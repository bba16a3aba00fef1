// SPDX-License-Identifier: Apache-2.0
//
// Monitors's TLM sockets: the external PMU and AMU frames of each PE, for
// the bus and for a debugger, and peek by register name.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "monitors_private.h"

namespace pmvp::sc {

using sc_core::sc_time;

// TLM response for an external access, by the kernel's result.
static tlm::tlm_response_status status_of(int err)
{
    switch (err) {
    case PMVP_OK: return tlm::TLM_OK_RESPONSE;
    case PMVP_ERR_SIZE: return tlm::TLM_BURST_ERROR_RESPONSE;
    case PMVP_ERR_ADDRESS: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    default: return tlm::TLM_GENERIC_ERROR_RESPONSE;  // refused: Off, locks, authentication
    }
}

// A register's bytes between the payload and a value: 4 or 8 of them, the
// only lengths an access reaches the kernel with, each copied as one move.
static void copy_lane(void *to, const void *from, unsigned len)
{
    if (len == 8)
        std::memcpy(to, from, 8);
    else
        std::memcpy(to, from, 4);
}

// One access of `gp` to frame f of PE pe at time t:
// - TLM_IGNORE_COMMAND: TLM_OK_RESPONSE, nothing done;
// - no data pointer: TLM_GENERIC_ERROR_RESPONSE;
// - byte enables that do not enable every byte: TLM_BYTE_ENABLE_ERROR_RESPONSE;
// - a streaming width below the length, or a length other than 4 or 8:
//   TLM_BURST_ERROR_RESPONSE (also an 8-byte access over 32-bit registers);
// - an address outside the frame, or not aligned to the length:
//   TLM_ADDRESS_ERROR_RESPONSE;
// - an access the spec refuses (PE off, OS Lock, OS Double Lock,
//   authentication), or an annotated delay that puts it beyond the
//   representable time (2^64 - 1 ps): TLM_GENERIC_ERROR_RESPONSE;
// - otherwise TLM_OK_RESPONSE, RAZ/WI and ignored writes included.
tlm::tlm_response_status Monitors::access(unsigned pe, pmvp_frame f, tlm::tlm_generic_payload &gp, const sc_time &delay,
                                          bool debug)
{
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND)
        return tlm::TLM_OK_RESPONSE;
    if (!gp.get_data_ptr())
        return tlm::TLM_GENERIC_ERROR_RESPONSE;
    unsigned len = gp.get_data_length();
    if (const unsigned char *be = gp.get_byte_enable_ptr()) {
        unsigned be_len = gp.get_byte_enable_length();
        for (unsigned i = 0; i < len; i++)
            if (be_len == 0 || be[i % be_len] != TLM_BYTE_ENABLED)
                return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    }
    if (gp.get_streaming_width() < len || (len != 4 && len != 8))
        return tlm::TLM_BURST_ERROR_RESPONSE;
    uint64_t addr = gp.get_address();
    if (addr >= PMVP_FRAME_SIZE || addr % len)
        return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    uint32_t off = (uint32_t)addr;
    uint64_t value = 0;
    int err;
    const AccessExtension *ext = gp.get_extension<AccessExtension>();
    const pmvp_ext_access bus = ext ? ext->access : default_access;
    // Frames are little-endian, as is every host pmvp is built for (TLM
    // data are in host order).
    if (gp.is_read()) {
        if (debug)
            err = timeline_->look(delay, [&](const pmvp_core *c, pmvp_time t) {
                return pmvp_ext_debug_read(c, pe, f, off, len, t, &value);
            });
        else if (!direct_reads_draw())
            err = timeline_->look(delay, [&](const pmvp_core *c, pmvp_time t) {
                return pmvp_ext_peek(c, pe, f, off, len, &bus, t, &value, nullptr);
            });
        else
            err = query(delay, [&](pmvp_core *c, pmvp_time t) {
                return pmvp_ext_read(c, pe, f, off, len, &bus, t, &value, nullptr);
            });
        if (!err)
            copy_lane(gp.get_data_ptr(), &value, len);
    } else {
        copy_lane(&value, gp.get_data_ptr(), len);
        err = change(delay, Input::FrameWrite{ {}, pe, f, off, len, value, bus, debug });
    }
    if (err && !debug)
        SC_REPORT_WARNING("pmvp/guest",
                          (std::string(name()) + ": external access refused: " + pmvp_strerror(err)).c_str());
    return status_of(err);
}

void Monitors::b_transport(int id, tlm::tlm_generic_payload &gp, sc_time &delay)
{
    tlm::tlm_response_status s = access((unsigned)id / 2, (pmvp_frame)(id % 2), gp, delay, false);
    gp.set_response_status(s);
    gp.set_dmi_allowed(false);

    delay += access_latency;  // the access is made at its start; it takes this long
}

unsigned int Monitors::transport_dbg(int id, tlm::tlm_generic_payload &gp)
{
    const unsigned len = gp.get_data_length();
    // A read the one-register path does not serve (a length other than 4
    // or 8, or unaligned): the frame's bytes.
    if (gp.is_read() && gp.get_data_ptr() && !gp.get_byte_enable_ptr() && len &&
        ((len != 4 && len != 8) || gp.get_address() % len))
        return dump((unsigned)id / 2, (pmvp_frame)(id % 2), gp);
    tlm::tlm_response_status s = access((unsigned)id / 2, (pmvp_frame)(id % 2), gp, sc_core::SC_ZERO_TIME, true);
    gp.set_response_status(s);
    return s == tlm::TLM_OK_RESPONSE && gp.get_command() != tlm::TLM_IGNORE_COMMAND ? len : 0;
}

// A debugger's read of any range of the frame (a whole frame's dump): the
// bytes of each 32-bit word through the debug path, as a 4-byte access
// reads it, and zero where the frame has no register or the debug path
// refuses the word; no side effects. The range is cut at the frame's end.
unsigned int Monitors::dump(unsigned pe, pmvp_frame f, tlm::tlm_generic_payload &gp)
{
    const uint64_t from = gp.get_address();
    if (from >= PMVP_FRAME_SIZE) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return 0;
    }
    const uint64_t to = std::min<uint64_t>(PMVP_FRAME_SIZE, from + gp.get_data_length());
    unsigned char *data = gp.get_data_ptr();
    for (uint64_t word = from & ~3ull; word < to; word += 4) {
        uint64_t value = 0;
        if (timeline_->look(sc_core::SC_ZERO_TIME, [&](const pmvp_core *c, pmvp_time t) {
                return pmvp_ext_debug_read(c, pe, f, (uint32_t)word, 4, t, &value);
            }) != PMVP_OK)
            value = 0;
        for (uint64_t a = std::max(word, from); a < std::min(word + 4, to); a++)
            data[a - from] = (unsigned char)(value >> 8 * (a - word));
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return (unsigned)(to - from);
}

FrameSocket::FrameSocket(const char *name) : tlm_target_socket(name)
{
    bind(static_cast<tlm::tlm_fw_transport_if<> &>(*this));
}

void FrameSocket::b_transport(tlm::tlm_generic_payload &gp, sc_time &delay)
{
    monitors_->b_transport(id_, gp, delay);
}

tlm::tlm_sync_enum FrameSocket::nb_transport_fw(tlm::tlm_generic_payload &gp, tlm::tlm_phase &phase, sc_time &delay)
{
    if (phase == tlm::BEGIN_REQ)
        monitors_->b_transport(id_, gp, delay);
    else
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
}

// Denied, for the whole address range (tlm_dmi's initial values: no
// pointer, no access, from 0 to the highest address).
bool FrameSocket::get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &dmi)
{
    dmi.init();
    return false;
}

unsigned int FrameSocket::transport_dbg(tlm::tlm_generic_payload &gp)
{
    return monitors_->transport_dbg(id_, gp);
}


uint64_t Monitors::peek(unsigned pe, pmvp_frame frame, const std::string &reg, unsigned n)
{
    uint32_t off = 0;
    uint64_t v = 0;
    if (pe >= num_pes())
        throw std::invalid_argument("pmvp::sc::Monitors::peek: no PE " + std::to_string(pe) + " (the core has " +
                                    std::to_string(num_pes()) + ")");
    const std::string named = reg + (reg.find("<n>") != std::string::npos ? " with n = " + std::to_string(n) : "");
    if (pmvp_ext_find(core_.get(), frame, reg.c_str(), n, &off) != PMVP_OK)
        throw std::invalid_argument("pmvp::sc::Monitors::peek: no register " + named);
    unsigned instance, word;
    const pmvp_ext_reg *r = pmvp_ext_decode(core_.get(), frame, off, &instance, &word);
    // The frame reserves slots for counters the core does not implement
    // (RAZ/WI to a guest); peek names registers, and those are not the core's.
    if (instance >= pmvp_ext_reg_instances(core_.get(), r))
        throw std::invalid_argument("pmvp::sc::Monitors::peek: no register " + named + " (the core has " +
                                    std::to_string(pmvp_ext_reg_instances(core_.get(), r)) + ")");
    int err = timeline_->look(sc_core::SC_ZERO_TIME, [&](const pmvp_core *c, pmvp_time t) {
        return pmvp_ext_debug_read(c, pe, frame, off, pmvp_ext_reg_width(c, r) / 8, t, &v);
    });
    if (err != PMVP_OK)
        throw std::runtime_error("pmvp::sc::Monitors::peek: " + reg + " of PE " + std::to_string(pe) + ": " +
                                 pmvp_strerror(err));
    return v;
}

}  // namespace pmvp::sc
