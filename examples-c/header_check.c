/* ztensor.h compiles on its own as C (twice: the include guard works). */
#include <ztensor.h>
#include <ztensor.h>

_Static_assert(sizeof(zt_object) == 2 * sizeof(size_t), "zt_object is two size_t: index and owner");
_Static_assert(ZT_OK == 0, "ZT_OK is 0");

int zt_header_check_c(void);
int zt_header_check_c(void) { return ZT_VERSION_MAJOR + ZT_VERSION_MINOR + ZT_VERSION_PATCH; }
