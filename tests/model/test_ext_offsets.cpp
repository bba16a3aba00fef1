// SPDX-License-Identifier: Apache-2.0
// The register table against the project's copy of the Arm ARM offset tables
// (tests/data/*_ext_offsets.csv, from I5.2 and I5.4), in both directions and
// in every layout and PMU version pmvp models.
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fixture.h"
#include "pmvp/ext.h"

namespace pmvp::test {
namespace {

struct Row {
    std::string name, bits, offset, condition;
};

// Splits one CSV line (fields may be quoted and contain commas).
std::vector<std::string> split_csv(const std::string &line)
{
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char ch : line) {
        if (ch == '"')
            quoted = !quoted;
        else if (ch == ',' && !quoted)
            out.emplace_back();
        else
            out.back() += ch;
    }
    return out;
}

std::vector<Row> load(const std::string &file)
{
    std::ifstream in(std::string(PMVP_TEST_DATA) + "/" + file);
    std::vector<Row> rows;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        auto f = split_csv(line);
        if (f.size() == 4)
            rows.push_back({ f[0], f[1], f[2], f[3] });
    }
    return rows;
}

// What a configuration implements, in the terms of the tables' conditions.
struct Features {
    bool pmu_ext64, amu_ext64, p1, p4, p5, icntr, p9, ss, th, extpmn;
};

// Every condition of the tables, transcribed. Features pmvp does not model
// (PCSR, SME, AMU_EXTACR) are absent; PMUv3p8 is PMUv3p9's. A
// condition missing here fails the test, so no row is skipped unread.
const std::map<std::string, std::function<bool(const Features &)>> &conditions()
{
    using F = const Features &;
    static const std::map<std::string, std::function<bool(const Features &)>> m = {
        { "FEAT_AMU_EXT32 is implemented", [](F f) { return !f.amu_ext64; } },
        { "FEAT_AMU_EXT64 is implemented", [](F f) { return f.amu_ext64; } },
        { "FEAT_AMU_EXTACR is implemented and FEAT_RME is implemented", [](F) { return false; } },
        { "FEAT_AMU_EXTACR is implemented and FEAT_RME is not implemented", [](F) { return false; } },
        { "FEAT_AMUv1 is implemented", [](F) { return true; } },
        { "FEAT_PCSRv8p9 is implemented", [](F) { return false; } },
        { "FEAT_PMUv3_EXT is implemented", [](F) { return true; } },
        { "FEAT_PMUv3_EXT is implemented and (v8Ap2 or FEAT_PCSRv8p2 is implemented)", [](F) { return true; } },
        { "FEAT_PMUv3_EXT is implemented and FEAT_PMUv3p9 is implemented", [](F f) { return f.p9; } },
        { "FEAT_PMUv3_EXT32 is implemented", [](F f) { return !f.pmu_ext64; } },
        { "FEAT_PMUv3_EXT32 is implemented and FEAT_PCSRv8p2 is implemented", [](F) { return false; } },
        { "FEAT_PMUv3_EXT32 is implemented and FEAT_PMUv3_ICNTR is implemented",
          [](F f) { return !f.pmu_ext64 && f.icntr; } },
        { "FEAT_PMUv3_EXT32 is implemented and FEAT_PMUv3p1 is implemented", [](F f) { return !f.pmu_ext64 && f.p1; } },
        { "FEAT_PMUv3_EXT32 is implemented and FEAT_PMUv3p5 is implemented", [](F f) { return !f.pmu_ext64 && f.p5; } },
        { "FEAT_PMUv3_EXT32 is implemented and FEAT_PMUv3p5 is not implemented",
          [](F f) { return !f.pmu_ext64 && !f.p5; } },
        { "FEAT_PMUv3_EXT32 is implemented and FEAT_PMUv3p9 is not implemented",
          [](F f) { return !f.pmu_ext64 && !f.p9; } },
        { "FEAT_PMUv3_EXT32 is implemented, FEAT_PMUv3_ICNTR is not implemented, and FEAT_PMUv3p9 is not implemented",
          [](F f) { return !f.pmu_ext64 && !f.icntr && !f.p9; } },
        { "FEAT_PMUv3_EXT64 is implemented", [](F f) { return f.pmu_ext64; } },
        { "FEAT_PMUv3_EXT64 is implemented and FEAT_PMUv3_ICNTR is implemented",
          [](F f) { return f.pmu_ext64 && f.icntr; } },
        { "FEAT_PMUv3_EXT64 is implemented, or FEAT_PMUv3_ICNTR is implemented, or FEAT_PMUv3p9 is implemented",
          [](F f) { return f.pmu_ext64 || f.icntr || f.p9; } },
        { "FEAT_PMUv3_EXTPMN is implemented", [](F f) { return f.extpmn; } },
        { "FEAT_PMUv3_ICNTR is implemented", [](F f) { return f.icntr; } },
        { "FEAT_PMUv3_SS is implemented", [](F f) { return f.ss; } },
        { "FEAT_PMUv3_SS is implemented and FEAT_PMUv3_ICNTR is implemented", [](F f) { return f.ss && f.icntr; } },
        { "FEAT_PMUv3p4 is implemented and (FEAT_PMUv3_EXT64 is implemented or FEAT_PMUv3p9 is implemented)",
          [](F f) { return f.p4 && (f.pmu_ext64 || f.p9); } },
        { "FEAT_PMUv3p4 is implemented, FEAT_PMUv3_EXT32 is implemented, and FEAT_PMUv3p9 is not implemented",
          [](F f) { return f.p4 && !f.pmu_ext64 && !f.p9; } },
        { "IsFeatureImplemented(FEAT_PMUv3_EXT32) && ((IsFeatureImplemented(FEAT_PMUv3_TH) || "
          "IsFeatureImplemented(FEAT_PMUv3p8)) || IsFeatureImplemented(FEAT_PMUv3_SME))",
          [](F f) { return !f.pmu_ext64 && (f.th || f.p9); } },
    };
    return m;
}

// Registers whose condition holds for pmvp but that it does not model
// (ext.h says so): PC sampling in the EXT64 view, and the OPTIONAL,
// IMPLEMENTATION DEFINED PMEVFILT2R<n>.
const std::set<std::string> kNotModelled = { "PMPCSR", "PMCCIDSR", "PMVCIDSR", "PMEVFILT2R<n>" };

// "0x400 + (4 * n)" for instance n.
uint32_t offset_of(const std::string &expr, unsigned n)
{
    std::smatch m;
    static const std::regex re(R"(0x([0-9A-Fa-f]+)(?: \+ \((\d+) \* n\))?)");
    EXPECT_TRUE(std::regex_match(expr, m, re)) << expr;
    uint32_t base = (uint32_t)std::stoul(m[1], nullptr, 16);
    return base + (m[2].matched ? (uint32_t)std::stoul(m[2]) * n : 0);
}

struct Variant {
    Features f;
    pmvp_core_config cfg;
    std::string label;
};

std::vector<Variant> variants()
{
    std::vector<Variant> out;
    for (bool ext64 : { false, true })
        for (pmvp_pmu_version v : { PMVP_PMUV3, PMVP_PMUV3P1, PMVP_PMUV3P4, PMVP_PMUV3P5 })
            for (bool icntr : { false, true })
                for (bool p9_ss : { false, true })
                    for (bool th : { false, true }) {
                        Variant x{};
                        pmvp_core_config_default(&x.cfg);
                        x.cfg.pmu_version = v;
                        pmvp_core_config_limit_to_version(&x.cfg);
                        if ((ext64 || icntr || p9_ss || th) && v < PMVP_PMUV3P5)
                            continue;  // FEAT_PMUv3_EXT64, FEAT_AMU_EXT64, FEAT_PMUv3_ICNTR, p9, SS and TH need PMUv3p5 (core.h)
                        x.cfg.feat_pmuv3_icntr = icntr;
                        x.cfg.feat_pmuv3p7 = x.cfg.feat_pmuv3p9 = x.cfg.feat_pmuv3_ss = x.cfg.feat_pmuv3_extpmn = p9_ss;
                        if (th) {  // FEAT_PMUv3_TH2 with an 8-bit TH (PMMIR.THWIDTH, EDGE); it needs FEAT_PMUv3p7
                            x.cfg.feat_pmuv3p7 = true;
                            x.cfg.pmmir = 0x02800000;
                        }
                        x.cfg.pmu_ext_layout = x.cfg.amu_ext_layout = ext64 ? PMVP_EXT64 : PMVP_EXT32;
                        // OPTIONAL in EXT32 before PMUv3p9: include it to check its offset.
                        x.cfg.pmu_ext_pmswinc = !ext64 && !p9_ss;
                        x.cfg.num_counters = 31;
                        x.cfg.amu_num_aux = 16;
                        x.f = {
                            ext64, ext64, v >= PMVP_PMUV3P1, v >= PMVP_PMUV3P4, v >= PMVP_PMUV3P5, icntr, p9_ss, p9_ss,
                            th,    p9_ss
                        };
                        x.label = std::string(ext64 ? "EXT64" : "EXT32") + " PMUVer " + std::to_string((int)v) +
                                  (icntr ? " ICNTR" : "") + (p9_ss ? " PMUv3p9 SS EXTPMN" : "") + (th ? " TH2" : "");
                        out.push_back(x);
                    }
    return out;
}

// Every row of the spec's tables whose condition holds is where the table
// puts it, with the same name and bits.
TEST(ExtOffsets, I5_2_I5_4_EverySpecRowIsDecodedByTheTable)
{
    for (const char *file : { "pmu_ext_offsets.csv", "amu_ext_offsets.csv" }) {
        auto rows = load(file);
        ASSERT_GT(rows.size(), 30u) << file;
        enum pmvp_frame frame = file[0] == 'p' ? PMVP_FRAME_PMU : PMVP_FRAME_AMU;
        for (const Variant &v : variants()) {
            if (frame == PMVP_FRAME_AMU && !v.cfg.feat_amuv1)
                continue;  // no AMU before PMUv3p4: FEAT_AMUv1 is Armv8.4's
            pmvp_core core;
            ASSERT_EQ(pmvp_core_init(&core, &v.cfg), PMVP_OK);
            for (const Row &r : rows) {
                auto cond = conditions().find(r.condition);
                ASSERT_NE(cond, conditions().end()) << "untranscribed condition: " << r.condition;
                if (!cond->second(v.f) || kNotModelled.count(r.name))
                    continue;
                bool indexed = r.name.find("<n>") != std::string::npos;
                for (unsigned n : indexed ? std::vector<unsigned>{ 0, 1, 3 } : std::vector<unsigned>{ 0 }) {
                    uint32_t off = offset_of(r.offset, n);
                    unsigned got_n = 99, word = 99;
                    const pmvp_ext_reg *reg = pmvp_ext_decode(&core, frame, off, &got_n, &word);
                    SCOPED_TRACE(v.label + ": " + r.name + r.bits + " at " + r.offset);
                    ASSERT_NE(reg, nullptr);
                    EXPECT_EQ(reg->name, r.name);
                    EXPECT_EQ(got_n, n);
                    // [63:32] is word 1 of its row's view, or a row of its own (half).
                    if (r.bits == "[63:32]") {
                        EXPECT_TRUE(reg->half || word == 1);
                    } else {
                        EXPECT_EQ(word, 0u);
                    }
                    if (r.bits == "[63:0]") {
                        EXPECT_EQ(pmvp_ext_reg_width(&core, reg), 64u);
                    }
                }
            }
        }
    }
}

// And every register the table places is a spec row whose condition holds:
// the table invents no offset.
TEST(ExtOffsets, I5_2_I5_4_EveryTableRowIsInTheSpec)
{
    auto pmu = load("pmu_ext_offsets.csv"), amu = load("amu_ext_offsets.csv");
    for (const Variant &v : variants()) {
        pmvp_core core;
        ASSERT_EQ(pmvp_core_init(&core, &v.cfg), PMVP_OK);
        for (size_t i = 0; i < pmvp_ext_reg_count(); i++) {
            const pmvp_ext_reg *reg = pmvp_ext_reg_at(i);
            if (!pmvp_ext_reg_present(&core, reg))
                continue;
            const auto &rows = reg->frame == PMVP_FRAME_PMU ? pmu : amu;
            for (unsigned n : reg->stride ? std::vector<unsigned>{ 0, 1, 3 } : std::vector<unsigned>{ 0 }) {
                uint32_t off = reg->offset + n * reg->stride;
                bool found = false;
                for (const Row &r : rows)
                    if (r.name == reg->name && conditions().at(r.condition)(v.f) && offset_of(r.offset, n) == off)
                        found = true;
                EXPECT_TRUE(found) << v.label << ": " << reg->name << " instance " << n << " at 0x" << std::hex << off;
            }
        }
    }
}

}  // namespace
}  // namespace pmvp::test
