# The `docs_stand_alone` test: the repository points nowhere outside itself.
#   1. no tracked file mentions the sibling directory `shared` one level up (specs and
#      design notes live in docs/, in our own words);
#   2. every relative link of README.md, docs/*.md and examples-c/README.md
#      names a file or directory inside the repository.
#
#   cmake -DZT_ROOT=... -P docs_check.cmake
if(NOT DEFINED ZT_ROOT)
  message(FATAL_ERROR "docs_check.cmake: ZT_ROOT is not set")
endif()
string(CONCAT needle "../" "shared")   # not spelled out, so this file does not match itself

find_program(GIT git)
set(hits "")
if(GIT AND EXISTS "${ZT_ROOT}/.git")
  execute_process(COMMAND "${GIT}" -C "${ZT_ROOT}" grep -n -I -F -e "${needle}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE hits ERROR_VARIABLE err)
  if(rc GREATER 1)
    message(FATAL_ERROR "git grep failed (${rc}): ${err}")
  endif()
else()
  # Not a git checkout (a source archive): the text files, build output excluded.
  file(GLOB_RECURSE files RELATIVE "${ZT_ROOT}" "${ZT_ROOT}/*.md" "${ZT_ROOT}/*.rs" "${ZT_ROOT}/*.sh"
       "${ZT_ROOT}/*.toml" "${ZT_ROOT}/*.txt" "${ZT_ROOT}/*.cmake" "${ZT_ROOT}/*.in" "${ZT_ROOT}/*.c"
       "${ZT_ROOT}/*.cpp" "${ZT_ROOT}/*.h" "${ZT_ROOT}/*.hpp" "${ZT_ROOT}/*.py")
  foreach(f IN LISTS files)
    if(f MATCHES "^(target|build|fuzz/target)/")
      continue()
    endif()
    file(READ "${ZT_ROOT}/${f}" text)
    string(FIND "${text}" "${needle}" at)
    if(at GREATER -1)
      string(APPEND hits "${f}\n")
    endif()
  endforeach()
endif()
if(NOT hits STREQUAL "")
  message(FATAL_ERROR "these files point outside the repository (${needle}):\n${hits}")
endif()

file(GLOB docs "${ZT_ROOT}/docs/*.md")
set(broken "")
foreach(md "${ZT_ROOT}/README.md" "${ZT_ROOT}/examples-c/README.md" ${docs})
  get_filename_component(dir "${md}" DIRECTORY)
  file(READ "${md}" text)
  # Square brackets would stop CMake from splitting the list: use < >.
  string(REPLACE "[" "<" text "${text}")
  string(REPLACE "]" ">" text "${text}")
  string(REPLACE ";" "," text "${text}")
  string(REGEX MATCHALL ">\\([^)]+\\)" links "${text}")
  foreach(link IN LISTS links)
    string(REGEX REPLACE "^>\\(([^)#]*).*\\)$" "\\1" target "${link}")
    if(target STREQUAL "" OR target MATCHES "^[a-z]+:")
      continue()
    endif()
    get_filename_component(abs "${dir}/${target}" ABSOLUTE)
    string(FIND "${abs}/" "${ZT_ROOT}/" inside)
    if(NOT EXISTS "${abs}" OR NOT inside EQUAL 0)
      string(APPEND broken "${md}: ${link}\n")
    endif()
  endforeach()
endforeach()
if(NOT broken STREQUAL "")
  message(FATAL_ERROR "links to nothing inside the repository:\n${broken}")
endif()
