// Everything an execution provider plugin needs: include this one header. The interface is C++
// for EPs built with the same compiler and Prism release (prism/ep/version.h); a plugin built
// for another is refused at load, naming both versions. Guide:
// docs/adding-an-execution-provider.md.
#pragma once

#include "prism/ep/capability.h"
#include "prism/ep/compiled_kernel.h"
#include "prism/ep/device_memory.h"
#include "prism/ep/element_type.h"
#include "prism/ep/execution_provider.h"
#include "prism/ep/graph_view.h"
#include "prism/ep/kernel_context.h"
#include "prism/ep/plugin.h"
#include "prism/ep/tensor_view.h"
#include "prism/ep/version.h"
