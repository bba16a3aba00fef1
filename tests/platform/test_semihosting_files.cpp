// SPDX-License-Identifier: Apache-2.0
//
// The host files semihosting gives a guest (platform/machines/
// semihosting_files.h): those of the directory the user names, and no other.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "semihosting_files.h"

namespace {

using pmvp::soc::virt::SemihostingFiles;
constexpr uint64_t kEnoent = 2, kEbadf = 9, kEacces = 13, kEisdir = 21, kEinval = 22;

// A directory of its own for the test, with a file, a subdirectory, and a
// link that leads out of it.
struct Dir {
    std::string path;
    Dir()
    {
        char tmpl[] = "/tmp/pmvp_semihosting_XXXXXX";
        path = mkdtemp(tmpl);
        std::ofstream(path + "/in.txt") << "hello";
        mkdir((path + "/sub").c_str(), 0700);
        EXPECT_EQ(symlink("/etc", (path + "/out").c_str()), 0);
    }
    ~Dir() { std::system(("rm -rf " + path).c_str()); }
};

}  // namespace

TEST(SemihostingFiles, AGuestReadsAndWritesTheFilesOfItsDirectory)
{
    Dir d;
    SemihostingFiles files(d.path);
    uint64_t err = 0;
    const int64_t in = files.open("in.txt", 1 /* rb */, &err);
    ASSERT_EQ(in, 4) << "the first handle after the console's";
    EXPECT_EQ(files.length(in, &err), 5);
    char buf[8] = {};
    EXPECT_EQ(files.read(in, buf, 8, &err), 5);
    EXPECT_EQ(std::string(buf), "hello");
    EXPECT_EQ(files.seek(in, 1, &err), 0);
    EXPECT_EQ(files.read(in, buf, 2, &err), 2);
    EXPECT_EQ(std::string(buf, 2), "el");
    EXPECT_EQ(files.write(in, "x", 1, &err), 0) << "opened for reading: nothing written";
    EXPECT_EQ(err, kEbadf);
    EXPECT_EQ(files.close(in, &err), 0);
    EXPECT_EQ(files.close(in, &err), -1);
    EXPECT_EQ(err, kEbadf);
    const int64_t out = files.open("sub/new.bin", 7 /* w+b */, &err);
    ASSERT_EQ(out, 5);
    EXPECT_EQ(files.write(out, "abc", 3, &err), 3);
    EXPECT_EQ(files.seek(out, 0, &err), 0);
    EXPECT_EQ(files.read(out, buf, 3, &err), 3) << "a read after a write, as ISO C allows after a seek";
    EXPECT_EQ(std::string(buf, 3), "abc");
    EXPECT_TRUE(files.any_open());
    EXPECT_EQ(files.close(out, &err), 0);
    EXPECT_FALSE(files.any_open());
    EXPECT_EQ(files.remove("sub/new.bin", &err), 0);
    EXPECT_EQ(files.open("sub/new.bin", 0, &err), -1);
    EXPECT_EQ(err, kEnoent);
}

TEST(SemihostingFiles, NothingOutsideTheDirectoryIsGiven)
{
    Dir d;
    SemihostingFiles files(d.path);
    uint64_t err = 0;
    for (const char *name : { "/etc/passwd", "../etc/passwd", "sub/../../etc/passwd", "out/passwd", "" }) {
        err = 0;
        EXPECT_EQ(files.open(name, 0, &err), -1) << name;
        EXPECT_EQ(err, kEacces) << name;
    }
    EXPECT_EQ(files.remove("out/passwd", &err), -1);
    EXPECT_EQ(files.open("sub", 0, &err), -1) << "a directory";
    EXPECT_EQ(err, kEisdir);
    EXPECT_EQ(files.open("in.txt", 12, &err), -1) << "no mode 12";
    EXPECT_EQ(err, kEinval);
    EXPECT_EQ(files.read(99, nullptr, 0, &err), -1);
    EXPECT_EQ(err, kEbadf);
    SemihostingFiles none;
    EXPECT_EQ(none.open("in.txt", 0, &err), -1) << "no directory given: no file";
    EXPECT_EQ(err, kEacces);
}
