# The `install` test: install the library with its own project (ffi/) into
# a fresh prefix, then use it the documented ways, every program run with
# LD_LIBRARY_PATH unset (rpath or static linking must suffice):
#   1. find_package(ztensor) from a separate CMake project (consumer/);
#   2. pkg-config: ztensor (shared, -Wl,-rpath), ztensor-static (libztensor.a),
#      and the README's C++ quick start built with pkg-config.
# Also checks the installed layout: libztensor.so -> libztensor.so.0 (the
# SONAME) -> libztensor.so.X.Y.Z, and .pc files with clean paths; and that a
# program linked in cargo's build directory (-L, -lztensor, rpath) starts:
# it records the SONAME, which ffi/build.rs links there.
#
#   cmake -DZT_ROOT=... -DSOURCE_DIR=... -DWORK_DIR=... -DSAMPLE=... -DMIXED=... -DQUICKSTART=...
#         -DCARGO_TARGET_DIR=... -DCARGO_PROFILE=... -DC_COMPILER=... -DCXX_COMPILER=... -P install_test.cmake
foreach(v ZT_ROOT SOURCE_DIR WORK_DIR SAMPLE MIXED QUICKSTART CARGO_TARGET_DIR CARGO_PROFILE C_COMPILER CXX_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_test.cmake: ${v} is not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${shown}\n${out}\n${err}")
  endif()
  set(RUN_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

function(expect cond_text)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "install test: ${cond_text}")
  endif()
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

# The library's own project: configure, build (cargo: up to date), install.
run(${CMAKE_COMMAND} -S "${ZT_ROOT}/ffi" -B "${WORK_DIR}/lib-build" "-DZT_CARGO_TARGET_DIR=${CARGO_TARGET_DIR}"
    "-DZT_CARGO_PROFILE=${CARGO_PROFILE}" "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCMAKE_INSTALL_LIBDIR=lib)
run(${CMAKE_COMMAND} --build "${WORK_DIR}/lib-build")
run(${CMAKE_COMMAND} --install "${WORK_DIR}/lib-build" --prefix "${prefix}")
foreach(f include/ztensor.h include/ztensor.hpp lib/libztensor.a lib/cmake/ztensor/ztensorConfig.cmake
          lib/pkgconfig/ztensor.pc lib/pkgconfig/ztensor-static.pc)
  expect("not installed: ${f}" EXISTS "${prefix}/${f}")
endforeach()

# Shared library layout and SONAME.
file(GLOB real RELATIVE "${prefix}/lib" "${prefix}/lib/libztensor.so.*.*.*")
expect("no lib/libztensor.so.X.Y.Z" real)
expect("lib/libztensor.so.X.Y.Z is a link" NOT IS_SYMLINK "${prefix}/lib/${real}")
expect("lib/libztensor.so.0 is not a link" IS_SYMLINK "${prefix}/lib/libztensor.so.0")
expect("lib/libztensor.so is not a link" IS_SYMLINK "${prefix}/lib/libztensor.so")
file(READ_SYMLINK "${prefix}/lib/libztensor.so" to)
expect("libztensor.so -> ${to}, expected libztensor.so.0" to STREQUAL "libztensor.so.0")
file(READ_SYMLINK "${prefix}/lib/libztensor.so.0" to)
expect("libztensor.so.0 -> ${to}, expected ${real}" to STREQUAL "${real}")
find_program(READELF readelf)
if(READELF)
  run(${READELF} -d "${prefix}/lib/${real}")
  expect("SONAME is not libztensor.so.0:\n${RUN_OUTPUT}" RUN_OUTPUT MATCHES "Library soname: \\[libztensor\\.so\\.0\\]")
endif()

# 0. cargo's build directory, as a user links there by hand.
if(CARGO_PROFILE STREQUAL "dev")
  set(build_lib "${CARGO_TARGET_DIR}/debug")
else()
  set(build_lib "${CARGO_TARGET_DIR}/${CARGO_PROFILE}")
endif()
run(${C_COMPILER} "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/consumer_build_dir" "-I${ZT_ROOT}/include"
    "-L${build_lib}" -lztensor "-Wl,-rpath,${build_lib}")
run("${WORK_DIR}/consumer_build_dir" "${SAMPLE}")
message(STATUS "linked in ${build_lib}: ${RUN_OUTPUT}")
if(READELF)
  run(${READELF} -d "${WORK_DIR}/consumer_build_dir")
  expect("consumer_build_dir does not need libztensor.so.0:\n${RUN_OUTPUT}"
         RUN_OUTPUT MATCHES "Shared library: \\[libztensor\\.so\\.0\\]")
endif()

# 1. find_package
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/consumer" -B "${WORK_DIR}/consumer"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
foreach(exe consumer consumer_static consumer_cpp)
  run("${WORK_DIR}/consumer/${exe}" "${SAMPLE}")
  message(STATUS "${exe}: ${RUN_OUTPUT}")
endforeach()
if(READELF)
  run(${READELF} -d "${WORK_DIR}/consumer/consumer")
  expect("consumer does not need libztensor.so.0:\n${RUN_OUTPUT}" RUN_OUTPUT MATCHES "Shared library: \\[libztensor\\.so\\.0\\]")
  run(${READELF} -d "${WORK_DIR}/consumer/consumer_static")
  expect("consumer_static needs libztensor:\n${RUN_OUTPUT}" NOT RUN_OUTPUT MATCHES "libztensor")
endif()

# 2. pkg-config
find_program(PKG_CONFIG pkg-config)
expect("pkg-config not found" PKG_CONFIG)
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
function(pc out)
  run(${PKG_CONFIG} ${ARGN})
  string(STRIP "${RUN_OUTPUT}" flags)
  expect("pkg-config ${ARGN} gives a path with '..': ${flags}" NOT flags MATCHES "/\\.\\./")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()
pc(shared --cflags --libs ztensor)
pc(libdir --variable=libdir ztensor)
expect("libdir ${libdir} is not ${prefix}/lib" libdir STREQUAL "${prefix}/lib")
run(${C_COMPILER} "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/consumer_pc" ${shared} "-Wl,-rpath,${libdir}")
run("${WORK_DIR}/consumer_pc" "${SAMPLE}")
message(STATUS "pkg-config, shared + rpath: ${RUN_OUTPUT}")

pc(static --cflags --libs ztensor-static)
run(${C_COMPILER} "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/consumer_pc_static" ${static})
run("${WORK_DIR}/consumer_pc_static" "${SAMPLE}")
message(STATUS "pkg-config ztensor-static: ${RUN_OUTPUT}")
if(READELF)
  run(${READELF} -d "${WORK_DIR}/consumer_pc_static")
  expect("the ztensor-static build needs libztensor:\n${RUN_OUTPUT}" NOT RUN_OUTPUT MATCHES "libztensor")
endif()
pc(private --static --cflags --libs ztensor)
expect("pkg-config --static --libs ztensor lacks the system libraries: ${private}" private MATCHES "-lpthread")
# A fully static program: -static makes -lztensor pick libztensor.a (needs the C library's libc.a).
execute_process(COMMAND ${C_COMPILER} -print-file-name=libc.a OUTPUT_VARIABLE libc_a OUTPUT_STRIP_TRAILING_WHITESPACE)
if(IS_ABSOLUTE "${libc_a}")
  run(${C_COMPILER} -static "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/consumer_pc_full_static" ${private})
  run("${WORK_DIR}/consumer_pc_full_static" "${SAMPLE}")
  message(STATUS "pkg-config --static with -static: ${RUN_OUTPUT}")
else()
  message(WARNING "no libc.a for ${C_COMPILER}: the -static pkg-config build is NOT tested")
endif()

# The README's C++ quick start, built with pkg-config (shared + rpath), on a mixed-dtype file.
run(${CXX_COMPILER} -std=c++17 "${QUICKSTART}" -o "${WORK_DIR}/quickstart_pc" ${shared} "-Wl,-rpath,${libdir}")
run("${WORK_DIR}/quickstart_pc" "${MIXED}")
message(STATUS "README quick start via pkg-config: ${RUN_OUTPUT}")
