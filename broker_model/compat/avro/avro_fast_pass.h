#pragma once
// Internal to avro_resolve.cc (split out by concern, included there only):
// the fast "no error anywhere?" pass over the compact schemas.

#include <cstring>

#include "broker_model/compat/avro/avro_resolver.h"

namespace cnx::compat::avro::resolve {

// ---- the fast "no error anywhere?" pass ----

// Walks the (writer, reader) pairs in the Resolver's order, on the schemas'
// CompactSchema tables, building nothing: no actions, no messages, no
// allocation in steady state. It answers only "compatible" (no error action
// and no exception anywhere in the grammar) or "don't know" (bail): the full
// Resolver then runs and builds the grammar, its verdict and its problems.
//
// It is only entered where "no error action, no exception" implies the full
// verdict is compatible under every rule set (see FastPass::applies): neither
// schema recursive (so FlattenCheck cannot fire, the 1.8.2 hasErrors search
// meets no symbol twice and its default-value grammars cannot loop), no
// reader alias to apply (the writer's names are its own), and the nesting
// bounded well below kMaxDepth. It bails on the first error, on a reader
// union where Resolver would resolve a record branch speculatively, on a
// default that does not encode, and when it exceeds a linear work budget
// (pairs revisited without the Resolver's memo).
class FastPass {
public:
    FastPass(const Schema& w, const Schema& r, const Rules& rules)
        : w_(w), r_(r), cw_(w.compact), cr_(r.compact), rules_(rules),
          budget_(16 * static_cast<std::int64_t>(w.nodeCount() + r.nodeCount()) + 1024), initialBudget_(budget_) {}

    static bool applies(const Schema& w, const Schema& r, const Rules& rules) {
        if (!w.compact.ready || !r.compact.ready) return false;
        if (w.recursive || r.recursive) return false;
        // Bounded nesting: every depth the Resolver, the 1.8.2 hasErrors search
        // (also over a defaulted reader field's own grammar) and the default
        // encoder reach stays far below kMaxDepth.
        if (std::max(w.compact.maxDepth, r.compact.maxDepth) > static_cast<std::uint32_t>(kMaxFastDepth)) return false;
        if (rules.applyAliases && r.hasAliases) return false;
        // 1.8.2 hasErrors also searches generate(T, T) of each defaulted reader
        // field; there a reader union with two record branches makes the
        // Resolver try one record's structure against the other, which can throw.
        if (!rules.visitedHasErrors && r.compact.severalRecordBranches) return false;
        return true;
    }

    /// True: the full resolution finds no error and throws nothing.
    bool compatible() {
        Scratch& s = scratch();
        s.marks.clear();
        s.memo.assign(cw_.nodes.size(), 0);
        scratch_ = &s;
        return resolve(w_.root, r_.root, 0);
    }

    /// The pairs visited so far, out of the linear budget (Resolution::work).
    std::uint64_t work() const { return static_cast<std::uint64_t>(initialBudget_ - std::max<std::int64_t>(budget_, 0)); }

private:
    static constexpr int kMaxFastDepth = 1000;  // deeper: the Resolver decides (its limit is kMaxDepth)

    struct Scratch {
        std::vector<std::uint8_t> marks;   // reader fields matched, a stack segment per record being resolved
        std::vector<std::uint32_t> memo;   // writer record -> reader record + 1 resolved without error
    };
    static Scratch& scratch() {
        thread_local Scratch s;
        return s;
    }

    using CNode = CompactSchema::CNode;
    using CField = CompactSchema::CField;

    bool resolve(NodeId w, NodeId r, int depth) {
        if (depth > kMaxFastDepth || --budget_ < 0) return false;
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        if (W.type == Type::union_) return writerUnion(w, r, depth);
        if (W.type == R.type) return sameType(w, r, depth);
        if (R.type == Type::union_) return readerUnion(w, r, depth);
        return Resolver::promotable(W.type, R.type);
    }

    bool namesMatch(NodeId w, NodeId r) const {
        return rules_.shortNames ? cw_.shortName(w) == cr_.shortName(r) : cw_.fullName(w) == cr_.fullName(r);
    }

    bool sameType(NodeId w, NodeId r, int depth) {
        const CNode& W = cw_.nodes[w];
        switch (W.type) {
            case Type::fixed: return namesMatch(w, r) && W.a == cr_.nodes[r].a;
            case Type::enumeration: return namesMatch(w, r);
            case Type::array:
            case Type::map: return resolve(W.a, cr_.nodes[r].a, depth + 1);
            case Type::record: return record(w, r, depth);
            case Type::union_: return writerUnion(w, r, depth);
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return true;
        }
        return false;
    }

    // ---- unions ----

    bool writerUnion(NodeId w, NodeId r, int depth) {
        const CNode& W = cw_.nodes[w];
        if (W.b == 0) return false;
        bool equiv = false;
        if (rules_.equivUnionIsSimple) {
            int e = unionEquiv(w, r, depth);
            if (e < 0) return false;
            equiv = e == 1;
        }
        // As the Resolver: every branch is resolved (an error under an
        // equivalent union would be ignored there; here it only bails).
        for (std::uint32_t i = 0; i < W.b; ++i) {
            NodeId wb = cw_.branches[W.a + i];
            NodeId rb = equiv ? cr_.branches[cr_.nodes[r].a + i] : r;
            if (!resolve(wb, rb, depth + 1)) return false;
        }
        return true;
    }

    // Resolver::unionEquiv without its memo (neither schema is recursive):
    // 1 equivalent, 0 not, -1 bail.
    int unionEquiv(NodeId w, NodeId r, int depth) {
        if (depth > kMaxFastDepth || --budget_ < 0) return -1;
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        if (W.type != R.type) return 0;
        if (isNamed(W.type) && !namesMatch(w, r)) return 0;
        switch (W.type) {
            case Type::array:
            case Type::map: return unionEquiv(W.a, R.a, depth + 1);
            case Type::fixed: return W.a == R.a ? 1 : 0;
            case Type::enumeration:
                if (W.b != R.b) return 0;
                for (std::uint32_t i = 0; i < W.b; ++i) {
                    if (cw_.text(cw_.symbols[W.a + i]) != cr_.text(cr_.symbols[R.a + i])) return 0;
                }
                return 1;
            case Type::union_:
                if (W.b != R.b) return 0;
                for (std::uint32_t i = 0; i < W.b; ++i) {
                    int e = unionEquiv(cw_.branches[W.a + i], cr_.branches[R.a + i], depth + 1);
                    if (e != 1) return e;
                }
                return 1;
            case Type::record:
                if (W.b != R.b) return 0;
                for (std::uint32_t i = 0; i < W.b; ++i) {
                    const CField& wf = cw_.fields[W.a + i];
                    const CField& rf = cr_.fields[R.a + i];
                    if (rules_.equivComparesFieldNames && !sameName(wf, rf)) return 0;
                    int e = unionEquiv(wf.type, rf.type, depth + 1);
                    if (e != 1) return e;
                }
                return 1;
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return 1;
        }
        return 0;
    }

    bool readerUnion(NodeId w, NodeId r, int depth) {
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        int match = -1;
        for (std::uint32_t j = 0; j < R.b && match < 0; ++j) {
            NodeId b = cr_.branches[R.a + j];
            if (cr_.nodes[b].type != W.type) continue;
            if (!isNamed(W.type) || cw_.fullName(w) == cr_.fullName(b)) match = static_cast<int>(j);
            else if (W.type == Type::record) return false;  // the Resolver would try the record's structure
        }
        for (std::uint32_t j = 0; j < R.b && match < 0; ++j) {
            if (Resolver::unionPromotes(W.type, cr_.nodes[cr_.branches[R.a + j]].type, rules_.unionPromotesToFloat)) {
                match = static_cast<int>(j);
            }
        }
        if (match < 0) return false;
        return resolve(w, cr_.branches[R.a + static_cast<std::uint32_t>(match)], depth + 1);
    }

    // ---- records ----

    bool sameName(const CField& a, const CField& b) const {
        return a.hash == b.hash && a.nameLen == b.nameLen && sameBytes(cw_.name(a).data(), cr_.name(b).data(), a.nameLen);
    }

    // Field names are mostly a few bytes long: compared here byte by byte
    // rather than by a call of the library's memcmp, which costs more.
    static bool sameBytes(const char* a, const char* b, std::size_t n) {
        if (n > 16) return std::memcmp(a, b, n) == 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (a[i] != b[i]) return false;
        }
        return true;
    }

    // Reader field of the writer field `wf` (writer position `at` tried first), or -1.
    std::int64_t readerField(const CNode& R, std::uint32_t at, const CField& wf) const {
        if (at < R.b && sameName(wf, cr_.fields[R.a + at])) return at;
        if (R.b == 0) return -1;
        std::uint32_t mask = CompactSchema::tableSize(R.b) - 1;
        const std::uint32_t* slots = cr_.slots.data() + R.c;
        for (std::uint32_t h = wf.hash & mask;; h = (h + 1) & mask) {
            std::uint32_t s = slots[h];
            if (s == 0) return -1;
            if (sameName(wf, cr_.fields[R.a + s - 1])) return s - 1;
        }
    }

    bool record(NodeId w, NodeId r, int depth) {
        std::uint32_t& memo = scratch_->memo[w];
        if (memo == r + 1) return true;
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        // The reader fields matched: bits of a word for most records, else a
        // segment of Scratch::marks (a stack, as records nest).
        if (R.b <= 64) {
            std::uint64_t bits = 0;
            auto mark = [&bits](std::uint32_t j) { bits |= std::uint64_t{1} << j; };
            auto marked = [&bits](std::uint32_t j) { return (bits >> j & 1) != 0; };
            if (!fields(W, r, R, depth, mark, marked)) return false;
        } else {
            auto& marks = scratch_->marks;
            const std::size_t base = marks.size();
            marks.resize(base + R.b, 0);
            auto mark = [&marks, base](std::uint32_t j) { marks[base + j] = 1; };
            auto marked = [&marks, base](std::uint32_t j) { return marks[base + j] != 0; };
            if (!fields(W, r, R, depth, mark, marked)) return false;
            marks.resize(base);
        }
        scratch_->memo[w] = r + 1;
        return true;
    }

    // Each writer field against its reader field (marking the reader's), then
    // each reader field no writer field matched: false on the first error.
    template <class Mark, class Marked>
    bool fields(const CNode& W, NodeId r, const CNode& R, int depth, Mark&& mark, Marked&& marked) {
        for (std::uint32_t i = 0; i < W.b; ++i) {
            std::int64_t j = matchField(W, R, i, depth);
            if (j == kBail) return false;
            if (j >= 0) mark(static_cast<std::uint32_t>(j));
        }
        for (std::uint32_t j = 0; j < R.b; ++j) {
            if (!marked(j) && !defaulted(r, R, j)) return false;
        }
        return true;
    }

    static constexpr std::int64_t kSkipped = -1, kBail = -2;

    // Writer field i of the record W resolved against its reader field in R:
    // that field's index, kSkipped when R has none, kBail on an error.
    std::int64_t matchField(const CNode& W, const CNode& R, std::uint32_t i, int depth) {
        const CField& wf = cw_.fields[W.a + i];
        std::int64_t j = readerField(R, i, wf);
        if (j < 0) return kSkipped;
        NodeId rt = cr_.fields[R.a + static_cast<std::uint32_t>(j)].type;
        // The same primitive on both sides: what resolve() answers (its limits,
        // then sameType), without the call. Most fields of most records are such pairs.
        static_assert(Type::string < Type::null && Type::fixed < Type::string, "primitives are the last types, from string");
        Type t = cw_.nodes[wf.type].type;
        if (t >= Type::string && t == cr_.nodes[rt].type) return depth + 1 > kMaxFastDepth || --budget_ < 0 ? kBail : j;
        return resolve(wf.type, rt, depth + 1) ? j : kBail;
    }

    // Reader field j of R, which no writer field matched: it has a default that encodes.
    bool defaulted(NodeId r, const CNode& R, std::uint32_t j) const {
        const CField& rf = cr_.fields[R.a + j];
        if (!(rf.flags & CompactSchema::kHasDefault)) return false;  // missing required field: an error
        // A null default of a nullable type always encodes (and 1.9+ skips it).
        if (rf.flags & CompactSchema::kNullDefaultOnNullable) return true;
        return defaultEncodes(r_.at(r).fields[j]);
    }

    // Resolver::checkDefault without throwing: false where it would throw.
    bool defaultEncodes(const Field& rf) const {
        try {
            const Node& t = r_.at(rf.type);
            bool nullable = t.type == Type::null || (t.type == Type::union_ && r_.at(t.branches.at(0)).type == Type::null);
            if (rules_.nullDefaultShortcut && rf.defaultValue->is_null() && nullable) return true;
            DefaultEncoder(r_).encode(rf.type, *rf.defaultValue);
            return true;
        } catch (...) {
            return false;
        }
    }

    const Schema& w_;
    const Schema& r_;
    const CompactSchema& cw_;
    const CompactSchema& cr_;
    Rules rules_;
    std::int64_t budget_;
    std::int64_t initialBudget_;
    Scratch* scratch_ = nullptr;
};

}  // namespace cnx::compat::avro::resolve
