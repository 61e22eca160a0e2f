# The `install` test: install the library from the build tree into a fresh
# prefix, then use it the two documented ways:
#   1. find_package(ztensor) from a separate CMake project (consumer/);
#   2. pkg-config --cflags --libs ztensor with the C compiler.
#
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DSAMPLE=... -DC_COMPILER=... -P install_test.cmake
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR SAMPLE C_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_test.cmake: ${v} is not set")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${shown}\n${out}\n${err}")
  endif()
  set(RUN_OUTPUT "${out}" PARENT_SCOPE)
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/ztensor.h include/ztensor.hpp)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()

# 1. find_package
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/consumer" -B "${WORK_DIR}/consumer"
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer")
foreach(exe consumer consumer_static consumer_cpp)
  run("${WORK_DIR}/consumer/${exe}" "${SAMPLE}")
  message(STATUS "${exe}: ${RUN_OUTPUT}")
endforeach()

# 2. pkg-config
find_program(PKG_CONFIG pkg-config)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config not found")
endif()
file(GLOB_RECURSE pc_files "${prefix}/*/ztensor.pc")
list(GET pc_files 0 pc)
get_filename_component(pc_dir "${pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${pc_dir}")
run(${PKG_CONFIG} --cflags --libs ztensor)
string(STRIP "${RUN_OUTPUT}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${PKG_CONFIG} --variable=libdir ztensor)
string(STRIP "${RUN_OUTPUT}" libdir)
run(${C_COMPILER} "${SOURCE_DIR}/consumer/consumer.c" -o "${WORK_DIR}/consumer_pc" ${flags} "-Wl,-rpath,${libdir}")
run("${WORK_DIR}/consumer_pc" "${SAMPLE}")
message(STATUS "pkg-config build: ${RUN_OUTPUT}")
run(${PKG_CONFIG} --static --libs ztensor)
string(STRIP "${RUN_OUTPUT}" static_flags)
message(STATUS "pkg-config --static --libs: ${static_flags}")
