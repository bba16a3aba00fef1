// SPDX-License-Identifier: Apache-2.0
#include "pseudocode.h"

#include <cctype>
#include <stdexcept>

namespace pseudocode {

namespace {

struct Token {
    enum Kind { WORD, NUMBER, BITS, TEXT, OP, END } kind;
    std::string s;
};

bool word_char(char c)
{
    return std::isalnum((unsigned char)c) || c == '_' || c == '.';
}

std::vector<Token> lex(const std::string &t)
{
    std::vector<Token> out;
    size_t i = 0;
    while (i < t.size()) {
        char c = t[i];
        if (std::isspace((unsigned char)c)) {
            i++;
            continue;
        }
        if (std::isalpha((unsigned char)c) || c == '_') {
            size_t j = i;
            while (j < t.size()) {
                if (word_char(t[j])) {
                    j++;
                    continue;
                }
                // HCR_EL2.<E2H,TGE>: a field list after a dot.
                if (t[j] == '<' && t[j - 1] == '.') {
                    j = t.find('>', j) + 1;
                    continue;
                }
                // AMEVCNTR0<m>_EL0: a one-letter index inside a name.
                if (t[j] == '<' && j + 2 < t.size() && std::isalpha((unsigned char)t[j + 1]) && t[j + 2] == '>') {
                    j += 3;
                    continue;
                }
                break;
            }
            out.push_back({ Token::WORD, t.substr(i, j - i) });
            i = j;
        } else if (std::isdigit((unsigned char)c)) {
            size_t j = i;
            while (j < t.size() && std::isalnum((unsigned char)t[j]))
                j++;
            out.push_back({ Token::NUMBER, t.substr(i, j - i) });
            i = j;
        } else if (c == '\'' || c == '"') {
            size_t j = t.find(c, i + 1);
            if (j == std::string::npos)
                throw std::runtime_error("unterminated literal");
            out.push_back({ c == '\'' ? Token::BITS : Token::TEXT, t.substr(i + 1, j - i - 1) });
            i = j + 1;
        } else {
            static const char *two[] = { "&&", "||", "==", "!=", ">=", "<=" };
            std::string op(1, c);
            for (const char *o : two)
                if (t.compare(i, 2, o) == 0)
                    op = o;
            out.push_back({ Token::OP, op });
            i += op.size();
        }
    }
    out.push_back({ Token::END, "" });
    return out;
}

}  // namespace

struct Node {
    enum Kind {
        // expressions
        LITERAL,
        NAME,
        CALL,
        NOT,
        AND,
        OR,
        COMPARE,
        // statements
        IF,
        TERMINAL,
        BIND
    } kind;
    std::string s;  // name, operator, call
    Value literal;
    std::vector<std::unique_ptr<Node>> kids;  // operands; IF: cond, then, (cond, then)*, [else]
    bool has_else = false;
    Outcome outcome;            // TERMINAL
    mutable uint64_t hits = 0;  // TERMINAL: runs that ended here
    std::string path;           // TERMINAL: the conditions that lead to it
};

namespace {

using NodeP = std::unique_ptr<Node>;

NodeP node(Node::Kind k, std::string s = {})
{
    auto n = std::make_unique<Node>();
    n->kind = k;
    n->s = std::move(s);
    return n;
}

class Parser {
public:
    explicit Parser(const std::string &text) : t_(lex(text)) {}

    std::vector<NodeP> program()
    {
        std::vector<NodeP> body;
        while (peek().kind != Token::END)
            body.push_back(statement());
        return body;
    }

private:
    std::vector<Token> t_;
    size_t p_ = 0;

    const Token &peek(size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
    Token next() { return t_[p_ < t_.size() - 1 ? p_++ : p_]; }
    bool is(const char *s) const { return peek().kind != Token::END && peek().s == s; }
    void expect(const char *s)
    {
        if (!is(s))
            throw std::runtime_error(std::string("expected ") + s + " at '" + peek().s + "'");
        p_++;
    }

    NodeP statement()
    {
        if (is("if")) {
            next();
            auto n = node(Node::IF);
            branch(n.get());
            while (is("elsif")) {
                next();
                branch(n.get());
            }
            if (is("else")) {
                next();
                n->has_else = true;
                path_.push_back("else");
                n->kids.push_back(statement());
                path_.pop_back();
            }
            return n;
        }
        if (is("integer")) {  // integer m = UInt(<encoding fields>): the world supplies m
            next();
            auto n = node(Node::BIND, next().s);
            skip_to_semicolon();
            return n;
        }
        auto n = node(Node::TERMINAL);
        for (const std::string &c : path_)
            n->path += "[" + c + "] ";
        Outcome &o = n->outcome;
        std::string first = peek().s;
        if (first == "UNDEFINED") {
            o.kind = Outcome::UNDEFINED;
        } else if (first == "AArch64.SystemAccessTrap" || first == "AArch64.AArch32SystemAccessTrap") {
            o.kind = Outcome::TRAP;
            o.el = std::stoi(peek(2).s.substr(2));  // name ( ELn , ec )
            o.ec = std::stoi(peek(4).s, nullptr, 0);
        } else if (first == "AArch32.TakeHypTrapException") {
            o.kind = Outcome::TRAP;
            o.el = 2;
            o.ec = std::stoi(peek(2).s, nullptr, 0);
        } else if (first == "ConstrainUnpredictableProcedure") {
            o.kind = Outcome::UNPREDICTABLE;
        } else if (first == "return") {
            o.ignored = true;
        } else if (peek().kind != Token::WORD && first != "(") {
            throw std::runtime_error("unexpected '" + first + "' at the start of a statement");
        } else if (first == "then" || first == "elsif" || first == "else" || first == "if") {
            throw std::runtime_error("misplaced '" + first + "'");
        } else {  // an assignment or a procedure call: the access happens
            for (size_t k = 0; peek(k).kind != Token::END && peek(k).s != ";"; k++)
                if (peek(k).s == "Zeros")
                    o.zero = true;
        }
        skip_to_semicolon();
        return n;
    }

    std::vector<std::string> path_;  // the conditions of the enclosing branches

    // cond 'then' statement, with the condition's text on the path.
    void branch(Node *n)
    {
        size_t from = p_;
        n->kids.push_back(expr());
        std::string text;
        for (size_t k = from; k < p_; k++)
            text += (text.empty() ? "" : " ") + t_[k].s;
        expect("then");
        path_.push_back(text);
        n->kids.push_back(statement());
        path_.pop_back();
    }

    void skip_to_semicolon()
    {
        while (peek().kind != Token::END && !is(";"))
            next();
        expect(";");
    }

    // A left-associative chain of `op` over operands parsed by `operand`.
    NodeP chain(const char *op, Node::Kind kind, NodeP (Parser::*operand)())
    {
        auto l = (this->*operand)();
        while (is(op)) {
            next();
            auto n = node(kind);
            n->kids.push_back(std::move(l));
            n->kids.push_back((this->*operand)());
            l = std::move(n);
        }
        return l;
    }

    NodeP expr() { return chain("||", Node::OR, &Parser::conj); }
    NodeP conj() { return chain("&&", Node::AND, &Parser::comparison); }

    NodeP comparison()
    {
        auto l = unary();
        if (is("IN")) {  // x IN {a, b, ...}: equal to one of them
            next();
            expect("{");
            auto n = node(Node::COMPARE, "IN");
            n->kids.push_back(std::move(l));
            while (!is("}")) {
                n->kids.push_back(unary());
                if (is(","))
                    next();
            }
            expect("}");
            return n;
        }
        for (const char *op : { "==", "!=", ">=", "<=", ">", "<" }) {
            if (is(op)) {
                next();
                auto n = node(Node::COMPARE, op);
                n->kids.push_back(std::move(l));
                n->kids.push_back(unary());
                return n;
            }
        }
        return l;
    }

    NodeP unary()
    {
        if (is("!")) {
            next();
            auto n = node(Node::NOT);
            n->kids.push_back(unary());
            return n;
        }
        return primary();
    }

    NodeP primary()
    {
        Token tk = next();
        if (tk.s == "(" && tk.kind == Token::OP) {
            auto e = expr();
            expect(")");
            return e;
        }
        if (tk.kind == Token::NUMBER) {
            auto n = node(Node::LITERAL);
            n->literal = Value::integer(std::stoll(tk.s, nullptr, 0));
            return n;
        }
        if (tk.kind == Token::BITS) {
            auto n = node(Node::LITERAL);
            n->literal = Value::bitstring(tk.s);
            return n;
        }
        if (tk.kind != Token::WORD)
            throw std::runtime_error("unexpected '" + tk.s + "'");
        if (tk.s == "boolean" && is("IMPLEMENTATION_DEFINED")) {
            next();
            return node(Node::NAME, "IMPLEMENTATION_DEFINED:" + next().s);
        }
        if (is("(")) {
            next();
            auto n = node(Node::CALL, tk.s);
            while (!is(")")) {
                n->kids.push_back(expr());
                if (is(","))
                    next();
            }
            expect(")");
            return n;
        }
        if (is("[")) {  // REG[index]: a name with its index folded in
            next();
            auto n = node(Node::CALL, tk.s + "[]");
            n->kids.push_back(expr());
            expect("]");
            return n;
        }
        return node(Node::NAME, tk.s);
    }
};

bool truth(const Value &v)
{
    if (v.kind != Value::BOOL)
        throw std::runtime_error("not a boolean");
    return v.i != 0;
}

bool equal(const Value &a, const Value &b)
{
    if (a.kind == Value::BITS && b.kind == Value::BITS) {
        if (a.bits.size() != b.bits.size())
            throw std::runtime_error("bit strings of different widths");
        for (size_t k = 0; k < a.bits.size(); k++)
            if (a.bits[k] != b.bits[k] && a.bits[k] != 'x' && b.bits[k] != 'x')
                return false;
        return true;
    }
    if (a.kind != b.kind)
        throw std::runtime_error("comparing values of different kinds");
    return a.i == b.i;
}

// The value of a field list NAME.<A,B,C>: the fields' bits, concatenated.
Value field_list(const World &w, const std::string &name)
{
    size_t lt = name.find('<');
    std::string reg = name.substr(0, lt), fields = name.substr(lt + 1, name.size() - lt - 2), bits;
    size_t start = 0;
    while (start <= fields.size()) {
        size_t comma = fields.find(',', start);
        std::string f = fields.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        bits += w.name(reg + f).bits;
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return Value::bitstring(bits);
}

Value eval(const Node &n, const World &w)
{
    switch (n.kind) {
    case Node::LITERAL: return n.literal;
    case Node::NAME: return n.s.find(".<") != std::string::npos ? field_list(w, n.s) : w.name(n.s);
    case Node::CALL: {
        std::vector<Value> args;
        for (auto &k : n.kids)
            args.push_back(eval(*k, w));
        return w.call(n.s, args);
    }
    case Node::NOT: return Value::boolean(!truth(eval(*n.kids[0], w)));
    case Node::AND: return Value::boolean(truth(eval(*n.kids[0], w)) && truth(eval(*n.kids[1], w)));
    case Node::OR: return Value::boolean(truth(eval(*n.kids[0], w)) || truth(eval(*n.kids[1], w)));
    case Node::COMPARE: {
        Value a = eval(*n.kids[0], w);
        if (n.s == "IN") {
            for (size_t k = 1; k < n.kids.size(); k++)
                if (equal(a, eval(*n.kids[k], w)))
                    return Value::boolean(true);
            return Value::boolean(false);
        }
        Value b = eval(*n.kids[1], w);
        if (n.s == "==")
            return Value::boolean(equal(a, b));
        if (n.s == "!=")
            return Value::boolean(!equal(a, b));
        if (a.kind != Value::INT || b.kind != Value::INT)
            throw std::runtime_error("ordering non-integers");
        if (n.s == ">=")
            return Value::boolean(a.i >= b.i);
        if (n.s == "<=")
            return Value::boolean(a.i <= b.i);
        if (n.s == ">")
            return Value::boolean(a.i > b.i);
        return Value::boolean(a.i < b.i);
    }
    default: throw std::runtime_error("not an expression");
    }
}

// Runs a statement; true when it ended the accessor (*out holds how).
bool exec(const Node &n, const World &w, Outcome *out)
{
    switch (n.kind) {
    case Node::TERMINAL:
        n.hits++;
        *out = n.outcome;
        return true;
    case Node::BIND: return false;
    case Node::IF: {
        size_t pairs = (n.kids.size() - (n.has_else ? 1 : 0)) / 2;
        for (size_t k = 0; k < pairs; k++)
            if (truth(eval(*n.kids[2 * k], w)))
                return exec(*n.kids[2 * k + 1], w, out);
        return n.has_else && exec(*n.kids.back(), w, out);
    }
    default: throw std::runtime_error("not a statement");
    }
}

void terminals(const Node &n, std::vector<const Node *> *out)
{
    if (n.kind == Node::TERMINAL)
        out->push_back(&n);
    if (n.kind == Node::IF)
        for (auto &k : n.kids)
            terminals(*k, out);
}

}  // namespace

std::vector<std::pair<Outcome, std::string>> Program::unreached() const
{
    std::vector<const Node *> all;
    for (auto &s : body_)
        terminals(*s, &all);
    std::vector<std::pair<Outcome, std::string>> out;
    for (const Node *t : all)
        if (!t->hits)
            out.push_back({ t->outcome, t->path });
    return out;
}

size_t Program::terminal_count() const
{
    std::vector<const Node *> all;
    for (auto &s : body_)
        terminals(*s, &all);
    return all.size();
}

Program::Program(const std::string &text) : body_(Parser(text).program()) {}
Program::~Program() = default;
Program::Program(Program &&) noexcept = default;

Outcome Program::run(const World &w) const
{
    Outcome o;
    for (auto &s : body_)
        if (exec(*s, w, &o))
            return o;
    throw std::runtime_error("the accessor ends without an outcome");
}

}  // namespace pseudocode
