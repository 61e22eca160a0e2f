# The Rust library as CMake targets: builds libztensor with cargo and
# defines ztensor::ztensor (shared), ztensor::ztensor_static and, for the
# install rules, ZT_LIB_DIR, ZT_SHARED_NAME, ZT_SONAME, ZT_STATIC_NAME,
# ZT_STATIC_DEPS and ZT_STATIC_PC_LIBS. Included by ffi/CMakeLists.txt (the
# library's own install project) and examples-c/CMakeLists.txt.
#
# Needs ZT_ROOT (the repository) and ZT_VERSION; options:
#   ZT_CARGO_TARGET_DIR   cargo's target directory (default: $CARGO_TARGET_DIR, else <build>/cargo)
#   ZT_CARGO_PROFILE      release (default) or dev
#   ZT_CARGO_JOBS         cargo -j (default: $CARGO_BUILD_JOBS when set, else 2;
#                         read at the first configure, then cached: -DZT_CARGO_JOBS=N changes it)
#   ZT_LINK_STATIC        ztensor::ztensor is the static library
#   ZT_LIBZSTD            zstd through the zstd C library (ON, the default: vendored
#                         and linked into libztensor, no system package); OFF builds
#                         the pure-Rust decoder (ruzstd), several times slower
# out = the environment variable `env` when set and not empty, else `fallback`.
function(_zt_env_or out env fallback)
  if(DEFINED ENV{${env}} AND NOT "$ENV{${env}}" STREQUAL "")
    set(${out} "$ENV{${env}}" PARENT_SCOPE)
  else()
    set(${out} "${fallback}" PARENT_SCOPE)
  endif()
endfunction()
_zt_env_or(_zt_default_target CARGO_TARGET_DIR "${CMAKE_BINARY_DIR}/cargo")
set(ZT_CARGO_TARGET_DIR "${_zt_default_target}" CACHE PATH "cargo target directory for the Rust library")
set(ZT_CARGO_PROFILE "release" CACHE STRING "cargo profile for the Rust library (release or dev)")
_zt_env_or(_zt_default_jobs CARGO_BUILD_JOBS 2)
set(ZT_CARGO_JOBS "${_zt_default_jobs}" CACHE STRING "cargo -j (default: $CARGO_BUILD_JOBS, else 2)")
option(ZT_LINK_STATIC "ztensor::ztensor links libztensor.a" OFF)
option(ZT_LIBZSTD "zstd through the zstd C library (OFF: pure-Rust ruzstd)" ON)
if(ZT_LIBZSTD)
  set(_zt_features "")
else()
  set(_zt_features --no-default-features --features std)
endif()

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_program(CARGO_EXECUTABLE cargo HINTS "$ENV{HOME}/.cargo/bin" REQUIRED)
if(ZT_CARGO_PROFILE STREQUAL "dev")
  set(_zt_profile_dir debug)
else()
  set(_zt_profile_dir "${ZT_CARGO_PROFILE}")
endif()
set(ZT_LIB_DIR "${ZT_CARGO_TARGET_DIR}/${_zt_profile_dir}")
set(ZT_SHARED_NAME "${CMAKE_SHARED_LIBRARY_PREFIX}ztensor${CMAKE_SHARED_LIBRARY_SUFFIX}")
set(ZT_STATIC_NAME "${CMAKE_STATIC_LIBRARY_PREFIX}ztensor${CMAKE_STATIC_LIBRARY_SUFFIX}")
# The SONAME ffi/build.rs gives the library: libztensor.so.<major>. Programs
# record it; build.rs also makes that link beside the library in ZT_LIB_DIR.
string(REGEX MATCH "^[0-9]+" ZT_VERSION_MAJOR "${ZT_VERSION}")
if(CMAKE_SYSTEM_NAME MATCHES "Linux|Android|BSD|DragonFly")
  set(ZT_SONAME "${ZT_SHARED_NAME}.${ZT_VERSION_MAJOR}")
else()
  set(ZT_SONAME "${ZT_SHARED_NAME}")
endif()

# Always run cargo: it knows when the library is up to date (a no-op then).
if(NOT TARGET ztensor_cargo)
  add_custom_target(ztensor_cargo ALL
    COMMAND ${CMAKE_COMMAND} -E env "CARGO_TARGET_DIR=${ZT_CARGO_TARGET_DIR}"
            "${CARGO_EXECUTABLE}" build --manifest-path "${ZT_ROOT}/ffi/Cargo.toml"
            --profile "${ZT_CARGO_PROFILE}" --lib -j "${ZT_CARGO_JOBS}" ${_zt_features}
    BYPRODUCTS "${ZT_LIB_DIR}/${ZT_SHARED_NAME}" "${ZT_LIB_DIR}/${ZT_STATIC_NAME}"
    WORKING_DIRECTORY "${ZT_ROOT}/ffi"
    COMMENT "cargo build ztensor-ffi (${ZT_CARGO_PROFILE})"
    USES_TERMINAL VERBATIM)
endif()

# What a program linking libztensor.a also needs (rustc --print native-static-libs).
set(ZT_STATIC_DEPS "Threads::Threads;${CMAKE_DL_LIBS};m;rt;util")
set(ZT_STATIC_PC_LIBS "-lpthread -ldl -lm -lrt -lutil")

add_library(ztensor_shared SHARED IMPORTED GLOBAL)
set_target_properties(ztensor_shared PROPERTIES
  IMPORTED_LOCATION "${ZT_LIB_DIR}/${ZT_SHARED_NAME}"
  IMPORTED_SONAME "${ZT_SONAME}"
  INTERFACE_INCLUDE_DIRECTORIES "${ZT_ROOT}/include")
add_dependencies(ztensor_shared ztensor_cargo)

add_library(ztensor_static STATIC IMPORTED GLOBAL)
set_target_properties(ztensor_static PROPERTIES
  IMPORTED_LOCATION "${ZT_LIB_DIR}/${ZT_STATIC_NAME}"
  INTERFACE_INCLUDE_DIRECTORIES "${ZT_ROOT}/include"
  INTERFACE_LINK_LIBRARIES "${ZT_STATIC_DEPS}")
add_dependencies(ztensor_static ztensor_cargo)

add_library(ztensor::ztensor_static ALIAS ztensor_static)
if(ZT_LINK_STATIC)
  add_library(ztensor::ztensor ALIAS ztensor_static)
else()
  add_library(ztensor::ztensor ALIAS ztensor_shared)
endif()
