// ztensor.h and ztensor.hpp compile on their own as C++17.
#include <ztensor.hpp>
#include <ztensor.h>

static_assert(sizeof(zt_object) == 2 * sizeof(std::size_t), "zt_object is two size_t: index and owner");
static_assert(ZT_OK == 0, "ZT_OK is 0");

int zt_header_check_cpp();
int zt_header_check_cpp() { return static_cast<int>(sizeof(zt::Span<const float>)); }
