#pragma once
// The plan's views for the CLI: text for a terminal and versioned JSON (plan/render.hpp, which
// also reads a saved plan back). A forwarding header, so the CLI depends on report/ for views.

#include <gpuctl/plan/render.hpp>
