#include "broker_model/compat/avro/avro_resolve.h"

#include "broker_model/compat/avro/avro_fast_pass.h"
#include "broker_model/compat/avro/avro_resolver.h"

// Sources read (apache/avro lang/java/avro): io/parsing/ResolvingGrammarGenerator.java
// (pre-1.9 self-contained generator and the 1.9+ Resolver-based one),
// Resolver.java (1.11.1+ text), io/parsing/Symbol.java (hasErrors with and
// without a visited set, flatten/flattenedSize), ValidateMutualRead.java,
// Schema.applyAliases/getAliases. Written from those, not copied.
//
// The pieces, by concern: avro_resolve_rules.h (version switches, actions),
// avro_writer_names.h, avro_default_encoder.h, avro_resolver.h (the grammar),
// avro_fast_pass.h; here the grammar-level outcomes and canRead.

namespace cnx::compat::avro {
namespace resolve {
namespace {

// ---- grammar-level outcomes ----

// Symbol.flatten: a record sequence that directly contains itself (no union,
// array or map in between) makes flattenedSize() recurse forever, in every
// Avro version (§6.3). Node space: actions, then writer nodes, then reader nodes.
class FlattenCheck {
public:
    explicit FlattenCheck(const Resolver& res)
        : res_(res), acts_(res.actions()), wBase_(acts_.size()), rBase_(wBase_ + res.writer().nodes().size()),
          total_(rBase_ + res.reader().nodes().size()) {}

    bool overflows(ActionId root, bool equivIsSimple) {
        std::vector<char> reach(total_, 0);
        std::vector<std::size_t> stack{root};
        while (!stack.empty()) {
            std::size_t n = stack.back();
            stack.pop_back();
            if (reach[n]) continue;
            reach[n] = 1;
            allEdges(n, equivIsSimple, stack);
        }
        color_.assign(total_, 0);
        for (std::size_t n = 0; n < total_; ++n) {
            if (reach[n] && cyclic(n)) return true;
        }
        return false;
    }

private:
    const Schema& schemaOf(std::size_t n) const { return n < rBase_ ? res_.writer() : res_.reader(); }
    std::size_t base(std::size_t n) const { return n < rBase_ ? wBase_ : rBase_; }

    void schemaEdges(std::size_t n, std::vector<std::size_t>& out, bool directOnly) const {
        const Schema& s = schemaOf(n);
        const Node& node = s.at(static_cast<NodeId>(n - base(n)));
        auto push = [&](NodeId id) {
            if (!directOnly || s.at(id).type == Type::record) out.push_back(base(n) + id);
        };
        if (node.type == Type::record) {
            for (const Field& f : node.fields) push(f.type);
        }
        if (directOnly) return;
        if (node.type == Type::array || node.type == Type::map) push(node.items);
        for (NodeId b : node.branches) push(b);
    }

    void allEdges(std::size_t n, bool equivIsSimple, std::vector<std::size_t>& out) const {
        if (n >= wBase_) return schemaEdges(n, out, false);
        const Action& a = acts_[n];
        if (a.kind == Kind::skip) return out.push_back(wBase_ + a.w);
        if (a.kind == Kind::writerUnion && a.unionEquiv && equivIsSimple) return out.push_back(wBase_ + a.w);
        for (ActionId c : a.children) out.push_back(c);
        for (auto j : a.defaults) out.push_back(rBase_ + res_.reader().at(a.r).fields[j].type);
    }

    void directEdges(std::size_t n, std::vector<std::size_t>& out) const {
        if (n >= wBase_) return schemaEdges(n, out, true);
        const Action& a = acts_[n];
        if (a.kind != Kind::record || a.shadow != kNone) return;
        for (ActionId c : a.children) {
            if (acts_[c].kind == Kind::record && acts_[c].shadow == kNone) out.push_back(c);
        }
        for (auto j : a.defaults) {
            NodeId t = res_.reader().at(a.r).fields[j].type;
            if (res_.reader().at(t).type == Type::record) out.push_back(rBase_ + t);
        }
    }

    // Iterative three-colour DFS: true iff a cycle is reachable from n.
    bool cyclic(std::size_t start) {
        if (color_[start] == 2) return false;
        std::vector<std::pair<std::size_t, std::vector<std::size_t>>> stack;
        auto push = [&](std::size_t n) {
            color_[n] = 1;
            std::vector<std::size_t> next;
            directEdges(n, next);
            stack.emplace_back(n, std::move(next));
        };
        push(start);
        while (!stack.empty()) {
            auto& [n, next] = stack.back();
            if (next.empty()) {
                color_[n] = 2;
                stack.pop_back();
                continue;
            }
            std::size_t m = next.back();
            next.pop_back();
            if (color_[m] == 1) return true;
            if (color_[m] == 0) push(m);
        }
        return false;
    }

    const Resolver& res_;
    const std::vector<Action>& acts_;
    std::size_t wBase_, rBase_, total_;
    std::vector<char> color_;
};

// Avro 1.8.2 Symbol.hasErrors: depth-first over the flattened grammar, no
// visited set. Records are inlined; union alternatives, union adjustments and
// repeaters are separate symbols; re-entering one that is still being
// searched never terminates (StackOverflowError), unless it is a repeater
// meeting itself in its own production (skipped). Production arrays are
// reversed, so record fields are searched last to first.
// Skip sub-grammars are not searched (SkipAction is an implicit action:
// hasErrors answers false). Default-value sub-grammars are: 1.8.2
// resolveRecords puts generate(rf.schema(), rf.schema()) of every defaulted
// reader field into the record's production, before the writer fields
// (checked against libavro-java 1.8.2 by tests/differential); `selfOverflows`
// answers for them.
class HasErrors182 {
public:
    enum class Outcome { none, error, overflow };
    using SelfOverflows = std::function<bool(NodeId readerType)>;
    HasErrors182(const std::vector<Action>& acts, const Schema& reader, SelfOverflows selfOverflows)
        : acts_(acts), reader_(reader), selfOverflows_(std::move(selfOverflows)), frame_(acts.size(), 0), inlineDone_(acts.size(), 0) {}

    Outcome run(ActionId root) { return inlineContent(root, kNone, 0); }

private:
    Outcome inlineContent(ActionId a, ActionId owner, int depth) {
        if (depth > kMaxDepth) return Outcome::overflow;
        const Action& act = acts_[a];
        if (act.kind == Kind::error || act.shadow != kNone) return Outcome::error;
        switch (act.kind) {
            case Kind::record: return inlineRecord(a, owner, depth);
            case Kind::container:
                if (a == owner) return Outcome::none;  // the repeater met itself: skipped
                return frame(a, [&] { return inlineContent(act.children[0], a, depth + 1); });
            case Kind::writerUnion:
                return frame(a, [&] { return branches(act.children, depth); });
            case Kind::readerUnion:
                return frame(a, [&] { return branches(act.children, depth); });
            case Kind::doNothing:
            case Kind::error:
            case Kind::promote:
            case Kind::enumAdjust:
            case Kind::skip: return Outcome::none;
        }
        return Outcome::none;
    }

    Outcome inlineRecord(ActionId a, ActionId owner, int depth) {
        if (inlineDone_[a]) return Outcome::none;
        if (selfOverflows_) {  // production: defaults (last first), then writer fields (last first)
            const auto& defaults = acts_[a].defaults;
            for (auto it = defaults.rbegin(); it != defaults.rend(); ++it) {
                if (selfOverflows_(reader_.at(acts_[a].r).fields[*it].type)) return Outcome::overflow;
            }
        }
        const auto& ch = acts_[a].children;
        for (auto it = ch.rbegin(); it != ch.rend(); ++it) {
            Outcome o = inlineContent(*it, owner, depth + 1);
            if (o != Outcome::none) return o;
        }
        inlineDone_[a] = 1;
        return Outcome::none;
    }

    // Alternative / UnionAdjust symbols: a record branch is the record's own
    // (shared) sequence object, searched as a frame of its own.
    Outcome branches(const std::vector<ActionId>& children, int depth) {
        for (ActionId c : children) {
            Outcome o = acts_[c].kind == Kind::record && acts_[c].shadow == kNone
                            ? frame(c, [&] { return inlineRecord(c, kNone, depth + 1); })
                            : inlineContent(c, kNone, depth + 1);
            if (o != Outcome::none) return o;
        }
        return Outcome::none;
    }

    template <typename F>
    Outcome frame(ActionId key, F&& search) {
        if (frame_[key] == 1) return Outcome::overflow;
        if (frame_[key] == 2) return Outcome::none;
        frame_[key] = 1;
        Outcome o = search();
        if (o == Outcome::none) frame_[key] = 2;
        return o;
    }

    const std::vector<Action>& acts_;
    const Schema& reader_;
    SelfOverflows selfOverflows_;
    std::vector<char> frame_;
    std::vector<char> inlineDone_;
};

// Avro 1.8.2: the grammar generate(T, T) of a defaulted reader field type T,
// searched by hasErrors inside the record that holds the default. It has no
// error symbol (a schema always resolves against itself); the search can only
// fail to terminate (recursion through a union). Its records are (reader,
// reader) pairs, disjoint from the (writer, reader) grammar, and share one
// memo as in Java (one `seen` map per generate).
class DefaultGrammars182 {
public:
    DefaultGrammars182(const Schema& reader, const Rules& rules) : reader_(reader), res_(reader, reader, rules) {}

    bool overflows(NodeId type) {
        auto it = cache_.find(type);
        if (it != cache_.end()) return it->second;
        ActionId root = res_.run(type, type);
        bool o = HasErrors182(res_.actions(), reader_, nullptr).run(root) == HasErrors182::Outcome::overflow;
        cache_[type] = o;
        return o;
    }

private:
    const Schema& reader_;
    Resolver res_;
    std::unordered_map<NodeId, bool> cache_;
};

// Every error symbol the grammar reaches, with reader paths (§6.3 problems).
class ProblemCollector {
public:
    ProblemCollector(const Resolver& res, bool equivIsSimple)
        : res_(res), acts_(res.actions()), equivIsSimple_(equivIsSimple), visited_(acts_.size(), 0) {}

    std::vector<Problem> run(ActionId root) {
        walk(root);
        return std::move(out_);
    }
    /// Steps of the walk taken (Resolution::work).
    std::uint64_t work() const { return work_; }

private:
    // One step of the walk: an action, the length of its parent's path in
    // `path_`, the suffix it adds, and its depth.
    struct Step {
        ActionId a;
        std::size_t parentLen;
        std::string suffix;
        int depth;
    };

    // Depth first, children in order, each action once: the order and paths of
    // the recursive walk, with an explicit stack and one path buffer. Every step
    // overwrites `path_` from its parent's length on, and a parent's prefix is
    // never touched below it, so memory is linear in the depth (issue 7 item 9:
    // a path copy per level was quadratic).
    void walk(ActionId root) {
        std::vector<Step> stack{{root, 0, "", 0}};
        while (!stack.empty()) {
            Step st = std::move(stack.back());
            stack.pop_back();
            ++work_;
            if (st.depth > kMaxDepth) continue;
            path_.resize(st.parentLen);
            path_ += st.suffix;
            ActionId a = st.a;
            while (acts_[a].shadow != kNone) a = acts_[a].shadow;
            if (visited_[a]) continue;
            visited_[a] = 1;
            expand(acts_[a], st.depth, stack);
        }
    }

    // Reports an error, or pushes the children to visit (last first, so the first pops first).
    void expand(const Action& act, int depth, std::vector<Step>& stack) {
        std::size_t len = path_.size();
        auto push = [&](ActionId c, std::string suffix) { stack.push_back({c, len, std::move(suffix), depth + 1}); };
        switch (act.kind) {
            case Kind::error: return report(act, path_);
            case Kind::record:
                for (std::size_t i = act.children.size(); i-- > 0;) {
                    if (acts_[act.children[i]].kind == Kind::skip) continue;
                    push(act.children[i], "/fields/" + std::to_string(act.readerField[i]) + "/type");
                }
                return;
            case Kind::container:
                return push(act.children[0], res_.reader().at(act.r).type == Type::array ? "/items" : "/values");
            case Kind::writerUnion:
                if (act.unionEquiv && equivIsSimple_) return;
                for (std::size_t i = act.children.size(); i-- > 0;) {
                    push(act.children[i], act.unionEquiv ? "/" + std::to_string(i) : std::string());
                }
                return;
            case Kind::readerUnion: return push(act.children[0], "/" + std::to_string(act.firstMatch));
            case Kind::doNothing:
            case Kind::promote:
            case Kind::enumAdjust:
            case Kind::skip: return;
        }
    }

    void report(const Action& act, const std::string& path) {
        Problem p;
        p.kind = std::string(problemKind(act.error));
        p.path = act.error == ErrorType::missingRequiredField ? path + "/fields/" + std::to_string(act.missingField) : path;
        p.detail = act.message;
        p.reader = fragment(res_.reader(), act.r);
        p.writer = fragment(res_.writer(), act.w);
        out_.push_back(std::move(p));
    }

    static std::string fragment(const Schema& s, NodeId id) {
        std::string text = toJsonText(s, id, false);
        constexpr std::size_t kMax = 2000;
        if (text.size() > kMax) text = text.substr(0, kMax) + "...";
        return text;
    }

    const Resolver& res_;
    const std::vector<Action>& acts_;
    bool equivIsSimple_;
    std::vector<char> visited_;
    std::string path_;
    std::vector<Problem> out_;
    std::uint64_t work_ = 0;
};

// Symbol.hasErrors with a visited set (1.9+): any reachable error symbol.
bool reachableError(const std::vector<Action>& acts, ActionId root, bool equivIsSimple) {
    std::vector<char> seen(acts.size(), 0);
    std::vector<ActionId> stack{root};
    while (!stack.empty()) {
        ActionId a = stack.back();
        stack.pop_back();
        if (seen[a]) continue;
        seen[a] = 1;
        const Action& act = acts[a];
        if (act.kind == Kind::error || act.shadow != kNone) return true;
        if (act.kind == Kind::skip || (act.kind == Kind::writerUnion && act.unionEquiv && equivIsSimple)) continue;
        for (ActionId c : act.children) stack.push_back(c);
    }
    return false;
}

Resolution errorResult(JavaException e) {
    Resolution r;
    r.verdict = Verdict::error;
    r.thrown = std::move(e);
    return r;
}

}  // namespace
}  // namespace resolve

Resolution canRead(const Schema& writer, const Schema& reader, AvroVersion version, FastPaths fast) {
    using namespace resolve;
    Rules rules = rulesFor(version);
    // The common answer, "compatible", without building the grammar; anything
    // else (or any doubt) is decided, with its problems, by the full resolution.
    // (Resolution::work: a resolution that throws counts only the fast pass's.)
    std::uint64_t fastWork = 0;
    if (enabled(fast) && FastPass::applies(writer, reader, rules)) {
        FastPass pass(writer, reader, rules);
        bool compatible = pass.compatible();
        fastWork = pass.work();
        if (compatible) {
            Resolution out;
            out.work = fastWork;
            return out;
        }
    }
    try {
        Resolver res(writer, reader, rules);
        ActionId root = res.run();
        // Flattening can only loop when a record reaches itself, i.e. in a recursive schema.
        bool mayLoop = writer.recursive || reader.recursive;
        if (mayLoop && FlattenCheck(res).overflows(root, rules.equivUnionIsSimple)) {
            return errorResult({std::string(kStackOverflowError), ""});
        }
        Resolution out;
        out.work = fastWork + res.work();
        // The collector reports a subset of the reachable error symbols: none reachable, none to collect.
        bool reachable = reachableError(res.actions(), root, rules.equivUnionIsSimple);
        if (reachable) {
            ProblemCollector collector(res, rules.equivUnionIsSimple);
            out.problems = collector.run(root);
            out.work += collector.work();
        }
        if (rules.visitedHasErrors) {
            out.verdict = reachable ? Verdict::incompatible : Verdict::compatible;
            return out;
        }
        DefaultGrammars182 defaults(reader, rules);
        auto selfOverflows = [&defaults](NodeId t) { return defaults.overflows(t); };
        switch (HasErrors182(res.actions(), reader, selfOverflows).run(root)) {
            case HasErrors182::Outcome::none: out.verdict = Verdict::compatible; break;
            case HasErrors182::Outcome::error: out.verdict = Verdict::incompatible; break;
            case HasErrors182::Outcome::overflow: return errorResult({std::string(kStackOverflowError), ""});
        }
        return out;
    } catch (const Thrown& t) {
        return errorResult(t.e);
    }
}

}  // namespace cnx::compat::avro
