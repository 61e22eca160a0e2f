# ZT_ROOT (the repository) and ZT_VERSION (ffi/Cargo.toml's version), before project().
get_filename_component(ZT_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
file(STRINGS "${ZT_ROOT}/ffi/Cargo.toml" _zt_version_line REGEX "^version *= *\"[0-9]+\\.[0-9]+\\.[0-9]+\"" LIMIT_COUNT 1)
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" ZT_VERSION "${_zt_version_line}")
