// SPDX-License-Identifier: Apache-2.0
//
// pmvp-floors: holds the kernel's floors (CONTRIBUTING.md, "The floors").
//
//   pmvp-floors DIR --floor NAME FILE... [--floor NAME FILE...]...
//
// The floors are given lowest first, each with its files (relative to DIR,
// the kernel's source directory: model/src). It reads every file of DIR and
// fails, saying which file and which function or header, when
// - a file of DIR belongs to no floor (a new file must be given one);
// - a file includes a header of DIR on a higher floor than its own;
// - a file calls a function defined in a file of a higher floor;
// - the source files (.c) call one another in a circle.
// It reads the sources as text: comments, strings and preprocessor lines
// are skipped, a function is defined where a name at file scope is followed
// by a parameter list and a body, and called where a name in a body is
// followed by "(". Functions with internal linkage (static) are their file's.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Source {
    std::string name;
    int floor = -1;
    std::vector<std::string> includes;  // local headers, as written
    std::set<std::string> defines;      // functions with external linkage
    std::vector<std::string> calls;     // names followed by "(" in a body
};

// The text of a file with comments and string and character literals
// blanked, and the targets of its #include "..." lines; preprocessor lines
// are blanked too.
std::string clean(const std::string &text, std::vector<std::string> &includes)
{
    std::string out(text.size(), ' ');
    size_t i = 0;
    bool line_start = true;
    while (i < text.size()) {
        char ch = text[i];
        if (ch == '\n') {
            out[i++] = '\n';
            line_start = true;
            continue;
        }
        if (line_start && ch == '#') {
            size_t end = i;
            while (end < text.size() && (text[end] != '\n' || text[end - 1] == '\\'))
                end++;
            std::string line = text.substr(i, end - i);
            size_t q = line.find('"');
            if (line.find("include") != std::string::npos && q != std::string::npos) {
                size_t q2 = line.find('"', q + 1);
                if (q2 != std::string::npos)
                    includes.push_back(line.substr(q + 1, q2 - q - 1));
            }
            for (size_t k = i; k < end; k++)
                if (text[k] == '\n')
                    out[k] = '\n';
            i = end;
            continue;
        }
        if (!std::isspace(static_cast<unsigned char>(ch)))
            line_start = false;
        if (ch == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            size_t end = text.find("*/", i + 2);
            end = end == std::string::npos ? text.size() : end + 2;
            for (size_t k = i; k < end; k++)
                if (text[k] == '\n')
                    out[k] = '\n';
            i = end;
            continue;
        }
        if (ch == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                i++;
            continue;
        }
        if (ch == '"' || ch == '\'') {
            size_t k = i + 1;
            while (k < text.size() && text[k] != ch) {
                if (text[k] == '\\')
                    k++;
                k++;
            }
            i = k + 1;
            continue;
        }
        out[i] = ch;
        i++;
    }
    return out;
}

bool ident_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Definitions and calls of a cleaned text.
void scan(const std::string &s, Source &src)
{
    static const std::set<std::string> keywords = { "if",     "while",          "for",      "switch", "return",
                                                    "sizeof", "_Static_assert", "_Alignof", "defined" };
    int depth = 0;
    size_t decl_start = 0;  // where the current file-scope declaration began
    for (size_t i = 0; i < s.size();) {
        char ch = s[i];
        if (ch == '{') {
            depth++;
            i++;
            continue;
        }
        if (ch == '}') {
            if (--depth == 0)
                decl_start = i + 1;
            i++;
            continue;
        }
        if (ch == ';' && depth == 0) {
            decl_start = i + 1;
            i++;
            continue;
        }
        if (!ident_char(ch) || (i > 0 && ident_char(s[i - 1]))) {
            i++;
            continue;
        }
        size_t end = i;
        while (end < s.size() && ident_char(s[end]))
            end++;
        std::string name = s.substr(i, end - i);
        size_t k = end;
        while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k])))
            k++;
        if (k < s.size() && s[k] == '(' && !std::isdigit(static_cast<unsigned char>(name[0])) &&
            !keywords.count(name)) {
            if (depth > 0) {
                src.calls.push_back(name);
            } else {
                // A definition: the parameter list is followed by a body.
                int paren = 0;
                size_t m = k;
                for (; m < s.size(); m++) {
                    if (s[m] == '(')
                        paren++;
                    else if (s[m] == ')' && --paren == 0)
                        break;
                }
                size_t b = m + 1;
                while (b < s.size() && std::isspace(static_cast<unsigned char>(s[b])))
                    b++;
                std::string head = s.substr(decl_start, i - decl_start);
                bool is_static = head.find("static") != std::string::npos;
                if (b < s.size() && s[b] == '{' && !is_static)
                    src.defines.insert(name);
            }
        }
        i = end;
    }
}

int fail(const std::string &why)
{
    std::fprintf(stderr, "pmvp-floors: %s\n", why.c_str());
    return 1;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 4)
        return fail("usage: pmvp-floors DIR --floor NAME FILE... [--floor NAME FILE...]...");
    fs::path dir = argv[1];
    std::vector<std::string> floor_names;
    std::map<std::string, int> floor_of;
    for (int i = 2; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--floor") {
            if (++i >= argc)
                return fail("--floor needs a name");
            floor_names.push_back(argv[i]);
        } else if (floor_names.empty()) {
            return fail("a file before the first --floor: " + a);
        } else {
            std::string file = fs::path(a).filename().string();
            if (floor_of.count(file))
                return fail(file + " is given two floors");
            floor_of[file] = static_cast<int>(floor_names.size()) - 1;
        }
    }

    std::map<std::string, Source> sources;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file())
            continue;
        std::string file = entry.path().filename().string();
        auto f = floor_of.find(file);
        if (f == floor_of.end())
            return fail(file + " (in " + dir.string() + ") belongs to no floor: give it one in model/CMakeLists.txt");
        std::ifstream in(entry.path());
        std::stringstream text;
        text << in.rdbuf();
        Source src;
        src.name = file;
        src.floor = f->second;
        std::string cleaned = clean(text.str(), src.includes);
        if (entry.path().extension() != ".def")
            scan(cleaned, src);
        sources[file] = src;
    }
    if (ec)
        return fail("cannot read " + dir.string() + ": " + ec.message());
    for (const auto &[file, floor] : floor_of)
        if (!sources.count(file))
            return fail(file + " is given a floor (" + floor_names[floor] + ") but is not in " + dir.string());

    std::map<std::string, std::string> defined_in;  // function -> file
    for (const auto &[file, src] : sources)
        for (const auto &fn : src.defines)
            defined_in.emplace(fn, file);

    int errors = 0;
    std::map<std::string, std::set<std::string>> edges;  // source file -> the files it calls
    for (const auto &[file, src] : sources) {
        for (const auto &inc : src.includes) {
            auto h = sources.find(fs::path(inc).filename().string());
            if (h == sources.end() || fs::path(inc).has_parent_path())
                continue;  // a public header (pmvp/...) or a system one
            if (h->second.floor > src.floor) {
                errors++;
                std::fprintf(stderr, "pmvp-floors: %s (%s) includes %s (%s), a higher floor\n", file.c_str(),
                             floor_names[src.floor].c_str(), h->first.c_str(), floor_names[h->second.floor].c_str());
            }
        }
        std::set<std::string> reported;
        for (const auto &fn : src.calls) {
            auto d = defined_in.find(fn);
            if (d == defined_in.end() || d->second == file || src.defines.count(fn))
                continue;
            if (fs::path(file).extension() == ".c")
                edges[file].insert(d->second);  // a header's inline body calls what it declares
            const Source &callee = sources[d->second];
            if (callee.floor > src.floor && reported.insert(fn).second) {
                errors++;
                std::fprintf(stderr, "pmvp-floors: %s (%s) calls %s of %s (%s), a higher floor\n", file.c_str(),
                             floor_names[src.floor].c_str(), fn.c_str(), callee.name.c_str(),
                             floor_names[callee.floor].c_str());
            }
        }
    }

    // A circle among the files: a depth-first search for a back edge.
    std::map<std::string, int> state;  // 0 new, 1 on the path, 2 done
    std::vector<std::string> path;
    std::function<bool(const std::string &)> visit = [&](const std::string &f) {
        state[f] = 1;
        path.push_back(f);
        for (const auto &g : edges[f]) {
            if (state[g] == 1) {
                std::string circle;
                for (auto it = std::find(path.begin(), path.end(), g); it != path.end(); ++it)
                    circle += *it + " -> ";
                std::fprintf(stderr, "pmvp-floors: the files call one another in a circle: %s%s\n", circle.c_str(),
                             g.c_str());
                return true;
            }
            if (state[g] == 0 && visit(g))
                return true;
        }
        path.pop_back();
        state[f] = 2;
        return false;
    };
    for (const auto &[file, src] : sources)
        if (state[file] == 0 && visit(file)) {
            errors++;
            break;
        }

    if (errors)
        return 1;
    for (size_t f = floor_names.size(); f-- > 0;) {
        std::printf("%-15s", floor_names[f].c_str());
        for (const auto &[file, src] : sources)
            if (src.floor == static_cast<int>(f))
                std::printf(" %s", file.c_str());
        std::printf("\n");
    }
    size_t n = 0;
    for (const auto &[file, to] : edges)
        n += to.size();
    std::printf("%zu files; %zu calls from one source file to another, each to its floor or below; no circle\n",
                sources.size(), n);
    return 0;
}
