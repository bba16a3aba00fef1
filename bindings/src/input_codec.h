// SPDX-License-Identifier: Apache-2.0
//
// What a checkpoint holds of a kept input (timeline.h). An input is a
// variant of typed values (Monitors::Input, X86Monitors::Input); each type T
// names itself with a stable tag, T::tag, and lists its fields once, in
// T::fields(self, f), which serves both directions. In the checkpoint:
//   u8 tag length, the tag's bytes, u8 number of values, each value as u64
// (integers, enums and booleans one value each, the kernel's structures
// field by field). A tag is never renamed and a field never reordered: a
// type that changes takes a new tag.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "pmvp/systemc/bytes.h"

extern "C" {
#include "pmvp/core.h"
#include "pmvp/ext.h"
#include "pmvp/sysreg.h"
#include "pmvp/x86.h"
}

namespace pmvp::sc::codec {

// The kernel's structures, field by field. A structure that gains a field
// fails its static_assert here until its list is extended.
template <class S, class F> void fields(S &x, F &&f, pmvp_context * = nullptr)
{
    static_assert(sizeof(pmvp_context) == 5, "pmvp_context changed: list its fields here");
    f(x.el), f(x.security), f(x.aarch32), f(x.halted), f(x.pm);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_pmu_controls * = nullptr)
{
    static_assert(sizeof(pmvp_pmu_controls) == 48, "pmvp_pmu_controls changed: list its fields here");
    f(x.mdcr_el2), f(x.mdcr_el3), f(x.hcr_el2), f(x.scr_el3), f(x.sder32_el3);
    f(x.secure_noninvasive_debug), f(x.noninvasive_debug), f(x.os_lock), f(x.os_double_lock);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_sysreg_context * = nullptr)
{
    static_assert(sizeof(pmvp_sysreg_context) == 144, "pmvp_sysreg_context changed: list its fields here");
    f(x.el), f(x.security), f(x.halted), f(x.edscr_sdd), f(x.pmuserenr), f(x.pmuacr), f(x.pmselr), f(x.amuserenr);
    f(x.mdcr_el2), f(x.mdcr_el3), f(x.pmccr), f(x.hcr_el2), f(x.hstr_el2), f(x.cptr_el2), f(x.cptr_el3), f(x.scr_el3);
    f(x.hdfgrtr_el2), f(x.hdfgwtr_el2), f(x.hafgrtr_el2), f(x.hdfgrtr2_el2), f(x.hdfgwtr2_el2);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_sysreg_a64 * = nullptr)
{
    static_assert(sizeof(pmvp_sysreg_a64) == 28, "pmvp_sysreg_a64 changed: list its fields here");
    f(x.write), f(x.op0), f(x.op1), f(x.crn), f(x.crm), f(x.op2), f(x.rt);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_ext_access * = nullptr)
{
    static_assert(sizeof(pmvp_ext_access) == 2, "pmvp_ext_access changed: list its fields here");
    f(x.security), f(x.debugger);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_x86_context * = nullptr)
{
    static_assert(sizeof(pmvp_x86_context) == 3, "pmvp_x86_context changed: list its fields here");
    f(x.cpl), f(x.cr4_pce), f(x.cr4_tsd);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_share * = nullptr)
{
    f(x.pe), f(x.event), f(x.count);
}
template <class S, class F> void fields(S &x, F &&f, pmvp_level_change * = nullptr)
{
    f(x.pe), f(x.event), f(x.level);
}

// The fields of a kernel structure x (chosen by its type, the third
// argument of the overloads above).
template <class S, class F> void visit_fields(S &x, F &&f)
{
    fields(x, f, (std::remove_const_t<S> *)nullptr);
}

// Appends a value, or a structure's fields, as u64 values.
struct Writer {
    std::vector<uint64_t> values;
    template <class T> void operator()(const T &v)
    {
        if constexpr (std::is_class_v<T>)
            visit_fields(v, *this);
        else
            values.push_back((uint64_t)v);
    }
};

// Reads them back in the same order; `short_` when fewer were written
// (a corrupt checkpoint).
struct Reader {
    const uint64_t *values;
    unsigned count, next = 0;
    bool short_ = false;
    template <class T> void operator()(T &v)
    {
        if constexpr (std::is_class_v<T>)
            visit_fields(v, *this);
        else if (next < count)
            v = (T)values[next++];
        else
            short_ = true;
    }
};

// Writes input `in` (any type with a variant member `kind`).
template <class Input> void write(std::vector<uint8_t> &out, const Input &in)
{
    std::visit(
        [&](const auto &x) {
            using T = std::decay_t<decltype(x)>;
            Writer w;
            T::fields(x, w);
            const std::string_view tag = T::tag;
            out.push_back((uint8_t)tag.size());
            out.insert(out.end(), tag.begin(), tag.end());
            out.push_back((uint8_t)w.values.size());
            for (uint64_t v : w.values)
                put_u64(out, v);
        },
        in.kind);
}

// Makes `out` the alternative of variant V whose tag is `tag`; false for a
// tag no alternative has.
template <class V, std::size_t I = 0> bool make_by_tag(std::string_view tag, V &out)
{
    if constexpr (I < std::variant_size_v<V>) {
        if (tag == std::variant_alternative_t<I, V>::tag) {
            out.template emplace<I>();
            return true;
        }
        return make_by_tag<V, I + 1>(tag, out);
    } else {
        return false;
    }
}

// Reads an input that write() wrote, from in[*at..size); NULL, with *at
// past it, or what is wrong with it (a phrase that follows "a kept change").
template <class Input> const char *read(const uint8_t *in, size_t size, size_t *at, Input *input)
{
    if (*at >= size || size - *at < 1u + in[*at] + 1u)
        return "is truncated";
    std::string_view tag((const char *)in + *at + 1, in[*at]);
    *at += 1 + tag.size();
    unsigned count = in[(*at)++];
    if (!make_by_tag(tag, input->kind))
        return "is of a kind this version does not know";
    std::vector<uint64_t> values(count);
    for (uint64_t &v : values)
        if (!get_u64(in, size, at, &v))
            return "is truncated";
    Reader r{ values.data(), count };
    std::visit([&](auto &x) { std::decay_t<decltype(x)>::fields(x, r); }, input->kind);
    if (r.short_ || r.next != count)
        return "has other values than its kind takes";
    return nullptr;
}

}  // namespace pmvp::sc::codec
