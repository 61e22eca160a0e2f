# Run a command and require an exact exit status: no crash, no signal, no
# sanitizer or valgrind report (those exit with 97-99), and no other code.
#
#   cmake -DEXPECT=<status> "-DCMD=<prog>|<arg>|..." -P expect_exit.cmake
#
# Arguments are separated by '|' (a ';' would be split by add_test).
if(NOT DEFINED EXPECT OR NOT DEFINED CMD)
  message(FATAL_ERROR "usage: cmake -DEXPECT=<status> -DCMD=<prog>|<arg>|... -P expect_exit.cmake")
endif()
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc)
if(NOT "${rc}" STREQUAL "${EXPECT}")
  string(REPLACE ";" " " shown "${cmd}")
  message(FATAL_ERROR "exit status '${rc}', expected ${EXPECT}: ${shown}")
endif()
