// SPDX-License-Identifier: Apache-2.0
//
// Running pmvp-soc from a test as a user runs it: its exit status, its
// outputs and its JSON report.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

struct SocRun {
    int status = -1;
    std::string out, err;
    json result;  // the --json output, when there is one
};

inline std::string slurp(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

inline std::string scenario(const std::string &name)
{
    return std::string(PMVP_SCENARIOS) + "/" + name + ".json";
}

// A file of its own for the running test: CTest runs tests in parallel, and
// two builds' suites may run at once on one machine (the process id).
inline std::string temp_file(const std::string &what)
{
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '_');  // a parameterised test's name
    return ::testing::TempDir() + "pmvp_soc_" + std::to_string(getpid()) + "_" + test + "_" + what;
}

// Runs pmvp-soc with `args` (JSON output requested), as a shell would.
inline SocRun pmvp_soc(const std::string &args, bool want_json = true)
{
    std::string out = temp_file("out"), err = temp_file("err"), js = temp_file("result.json");
    std::remove(js.c_str());
    std::string cmd =
        std::string(PMVP_SOC) + " " + args + (want_json ? " --json " + js : "") + " >" + out + " 2>" + err;
    SocRun r;
    int rc = std::system(cmd.c_str());
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    if (want_json && r.status <= 1) {
        std::string text = slurp(js);
        r.result = json::parse(text, nullptr, false);
    }
    return r;
}

// A raw image of AArch64 words, written for the test.
inline std::string raw_image(const std::string &what, const std::vector<uint32_t> &words)
{
    std::string path = temp_file(what + ".bin");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char *>(words.data()), (std::streamsize)(words.size() * 4));
    return path;
}

// Reads the word at x0 and ends the run by semihosting SYS_EXIT with x0's
// bits [63:24] if that word is the DTB's magic (big-endian 0xD00DFEED), 1
// otherwise.
inline const std::vector<uint32_t> kDtbProbe = { 0xb9400002, 0x18000143, 0xd358fc04, 0xd2800025, 0x6b03005f, 0x9a850084,
                                                 0x100000c1, 0xf9000424, 0xd2800300, 0xd45e0000, 0x14000000, 0xedfe0dd0,
                                                 0x00020026, 0x00000000, 0x00000000, 0x00000000 };

}  // namespace
