// SPDX-License-Identifier: Apache-2.0
//
// Building a Change (support.h) from a call's arguments and reading them
// back when it is applied: integers, enums and booleans as one argument
// each, the kernel's structures field by field. A structure that gains a
// field fails its static_assert here until its field list is extended.
#pragma once

#include <type_traits>

#include "pmvp/systemc/support.h"

extern "C" {
#include "pmvp/core.h"
#include "pmvp/ext.h"
#include "pmvp/sysreg.h"
#include "pmvp/x86.h"
}

namespace pmvp::sc {

template <class F> void fields(pmvp_context &x, F &&f)
{
    static_assert(sizeof(pmvp_context) == 5, "pmvp_context changed: list its fields here");
    f(x.el), f(x.security), f(x.aarch32), f(x.halted), f(x.pm);
}

template <class F> void fields(pmvp_pmu_controls &x, F &&f)
{
    static_assert(sizeof(pmvp_pmu_controls) == 48, "pmvp_pmu_controls changed: list its fields here");
    f(x.mdcr_el2), f(x.mdcr_el3), f(x.hcr_el2), f(x.scr_el3), f(x.sder32_el3);
    f(x.secure_noninvasive_debug), f(x.noninvasive_debug), f(x.os_lock), f(x.os_double_lock);
}

template <class F> void fields(pmvp_sysreg_context &x, F &&f)
{
    static_assert(sizeof(pmvp_sysreg_context) == 144, "pmvp_sysreg_context changed: list its fields here");
    f(x.el), f(x.security), f(x.halted), f(x.edscr_sdd), f(x.pmuserenr), f(x.pmuacr), f(x.pmselr), f(x.amuserenr);
    f(x.mdcr_el2), f(x.mdcr_el3), f(x.pmccr), f(x.hcr_el2), f(x.hstr_el2), f(x.cptr_el2), f(x.cptr_el3), f(x.scr_el3);
    f(x.hdfgrtr_el2), f(x.hdfgwtr_el2), f(x.hafgrtr_el2), f(x.hdfgrtr2_el2), f(x.hdfgwtr2_el2);
}

template <class F> void fields(pmvp_ext_access &x, F &&f)
{
    static_assert(sizeof(pmvp_ext_access) == 2, "pmvp_ext_access changed: list its fields here");
    f(x.security), f(x.debugger);
}

template <class F> void fields(pmvp_x86_context &x, F &&f)
{
    static_assert(sizeof(pmvp_x86_context) == 3, "pmvp_x86_context changed: list its fields here");
    f(x.cpl), f(x.cr4_pce), f(x.cr4_tsd);
}

// Appends the arguments of a change.
struct ChangeWriter {
    Change &ch;
    template <class T> ChangeWriter &operator<<(T v)
    {
        if constexpr (std::is_class_v<T>)
            fields(v, [&](auto &field) { *this << field; });
        else
            ch.arg[ch.count++] = (uint64_t)v;
        return *this;
    }
};

// A change of kind k with a call's arguments.
template <class... A> Change make_change(uint8_t kind, const A &...args)
{
    Change ch(kind);
    ChangeWriter w{ ch };
    (w << ... << args);
    return ch;
}

// Reads them back, in the order they were written; ok() is false when the
// change holds fewer arguments than were read (a corrupt checkpoint).
class ChangeReader {
public:
    explicit ChangeReader(const Change &ch) : ch_(ch) {}
    template <class T> T next()
    {
        T v{};
        if constexpr (std::is_class_v<T>)
            fields(v, [&](auto &field) { field = next<std::remove_reference_t<decltype(field)>>(); });
        else if (i_ < ch_.count)
            v = (T)ch_.arg[i_++];
        else
            short_ = true;
        return v;
    }
    bool ok() const { return !short_ && i_ == ch_.count; }

private:
    const Change &ch_;
    unsigned i_ = 0;
    bool short_ = false;
};

}  // namespace pmvp::sc
