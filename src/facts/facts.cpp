#include <gpuctl/facts/facts.hpp>

#include <algorithm>

namespace gpuctl {

bool NodeFacts::module_loaded(std::string_view name) const {
  return loaded_modules.present() && std::ranges::find(*loaded_modules.value, name) != loaded_modules.value->end();
}

}  // namespace gpuctl
