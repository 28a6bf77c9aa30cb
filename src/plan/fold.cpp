// Folding node plans with the same changes into one block (plan/fold.hpp).
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/plan/fold.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>

namespace gpuctl {
namespace {

void replace_word(std::string& text, std::string_view word, std::string_view placeholder) {
  text = util::replace_whole_words(text, word, placeholder);
}

// What a reader sees of a change, as one string; and the same with the node's own words out.
struct ChangeText {
  std::string raw;
  std::string own_words_out;
};

std::string shown_text(const Change& change) {
  std::string text;
  for (const auto* part : {&change.step, &change.resource, &change.summary, &change.reason, &change.diff}) {
    text += *part;
    text += '\0';
  }
  text += action_name(change.action);
  return text;
}

struct PlanText {
  std::string error_raw, error_out;
  std::vector<ChangeText> changes;
};

PlanText text_of(const NodePlan& node) {
  PlanText text{node.error, replace_own_words(node.error, node.node, node.address), {}};
  for (const auto& change : node.changes) {
    auto raw = shown_text(change);
    auto out = replace_own_words(raw, node.node, node.address);
    text.changes.push_back({std::move(raw), std::move(out)});
  }
  return text;
}

bool same_or_same_without_own_words(const std::string& a_raw, const std::string& a_out, const std::string& b_raw,
                                    const std::string& b_out) {
  return a_raw == b_raw || a_out == b_out;
}

bool folds_with(const NodePlan& a, const PlanText& at, const NodePlan& b, const PlanText& bt) {
  if (a.status != b.status || a.changes.size() != b.changes.size() || a.notes != b.notes) return false;
  if (!same_or_same_without_own_words(at.error_raw, at.error_out, bt.error_raw, bt.error_out)) return false;
  for (std::size_t i = 0; i < a.changes.size(); ++i)
    if (!same_or_same_without_own_words(at.changes[i].raw, at.changes[i].own_words_out, bt.changes[i].raw,
                                        bt.changes[i].own_words_out))
      return false;
  return true;
}

// Indexes 0..count-1 grouped greedily: each joins the first group whose first member it folds
// with, else starts one. Groups in order of their first member.
template <class FoldsWith>
std::vector<std::vector<std::size_t>> group_indexes(std::size_t count, FoldsWith folds_with) {
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < count; ++i) {
    const auto group = std::ranges::find_if(groups, [&](const auto& members) { return folds_with(members.front(), i); });
    if (group == groups.end()) groups.push_back({i});
    else group->push_back(i);
  }
  return groups;
}

template <class NameOf>
std::string hostlist_of(const std::vector<std::size_t>& members, NameOf name_of) {
  std::vector<std::string> names;
  for (const auto member : members) names.push_back(name_of(member));
  return hostlist::compress(names);
}

Change with_own_words_out(Change change, const NodePlan& node) {
  for (auto* part : {&change.summary, &change.reason, &change.diff}) *part = replace_own_words(*part, node.node, node.address);
  return change;
}

}  // namespace

std::string replace_own_words(std::string_view text, std::string_view name, std::string_view address) {
  std::string out(text);
  // The longer first, so that a name inside an address (or the reverse) is not cut in two.
  if (name.size() >= address.size()) {
    replace_word(out, name, k_node_placeholder);
    if (address != name) replace_word(out, address, k_address_placeholder);
  } else {
    replace_word(out, address, k_address_placeholder);
    replace_word(out, name, k_node_placeholder);
  }
  return out;
}

std::vector<TextGroup> fold_texts(const std::vector<NodeText>& items) {
  std::vector<std::string> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    auto text = replace_own_words(item.text, item.node, item.address);
    for (const auto& [word, placeholder] : item.own_words) replace_word(text, word, placeholder);
    out.push_back(std::move(text));
  }
  std::vector<TextGroup> groups;
  for (auto& members : group_indexes(items.size(), [&](std::size_t a, std::size_t b) {
         return items[a].text == items[b].text || out[a] == out[b];
       })) {
    const auto first = members.front();
    const bool all_raw_equal =
        std::ranges::all_of(members, [&](std::size_t m) { return items[m].text == items[first].text; });
    auto hostlist = hostlist_of(members, [&](std::size_t m) { return items[m].node; });
    groups.push_back({std::move(members), std::move(hostlist), all_raw_equal ? items[first].text : out[first]});
  }
  return groups;
}

std::vector<PlanGroup> fold_node_plans(const Plan& plan) {
  std::vector<PlanText> texts;
  texts.reserve(plan.nodes.size());
  for (const auto& node : plan.nodes) texts.push_back(text_of(node));

  std::vector<PlanGroup> groups;
  for (auto& members : group_indexes(plan.nodes.size(), [&](std::size_t a, std::size_t b) {
         return folds_with(plan.nodes[a], texts[a], plan.nodes[b], texts[b]);
       })) {
    const auto first = members.front();
    const NodePlan& node = plan.nodes[first];
    auto& group = groups.emplace_back();
    group.members = std::move(members);
    group.status = node.status;
    group.hostlist = hostlist_of(group.members, [&](std::size_t m) { return plan.nodes[m].node; });
    const auto all_raw_equal = [&](auto raw_of) {
      return std::ranges::all_of(group.members, [&](std::size_t m) { return raw_of(m) == raw_of(first); });
    };
    group.error = node.error;
    group.notes = node.notes;
    if (!all_raw_equal([&](std::size_t m) -> const std::string& { return texts[m].error_raw; })) {
      group.error = texts[first].error_out;
      group.placeholders = true;
    }
    for (std::size_t c = 0; c < node.changes.size(); ++c) {
      if (all_raw_equal([&](std::size_t m) -> const std::string& { return texts[m].changes[c].raw; })) {
        group.changes.push_back(node.changes[c]);
      } else {
        group.changes.push_back(with_own_words_out(node.changes[c], node));
        group.placeholders = true;
      }
    }
  }
  return groups;
}

}  // namespace gpuctl
