# Install rules for libztensor (after ztensor_library.cmake):
#   lib/libztensor.so.X.Y.Z, libztensor.so.X -> it (the SONAME), libztensor.so -> libztensor.so.X,
#   lib/libztensor.a, include/ztensor.h + ztensor.hpp,
#   lib/cmake/ztensor/ (find_package(ztensor)), lib/pkgconfig/ztensor.pc + ztensor-static.pc.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(_zt_here "${CMAKE_CURRENT_LIST_DIR}")
set(_zt_out "${CMAKE_CURRENT_BINARY_DIR}/ztensor-install")
file(MAKE_DIRECTORY "${_zt_out}")

if(ZT_SONAME STREQUAL ZT_SHARED_NAME)
  install(FILES "${ZT_LIB_DIR}/${ZT_SHARED_NAME}" DESTINATION "${CMAKE_INSTALL_LIBDIR}"
          PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
else()
  # The real file carries the full version; the links are installed as links.
  set(_zt_real "${ZT_SHARED_NAME}.${ZT_VERSION}")
  install(FILES "${ZT_LIB_DIR}/${ZT_SHARED_NAME}" DESTINATION "${CMAKE_INSTALL_LIBDIR}" RENAME "${_zt_real}"
          PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  file(CREATE_LINK "${_zt_real}" "${_zt_out}/${ZT_SONAME}" SYMBOLIC)
  file(CREATE_LINK "${ZT_SONAME}" "${_zt_out}/${ZT_SHARED_NAME}" SYMBOLIC)
  install(FILES "${_zt_out}/${ZT_SONAME}" "${_zt_out}/${ZT_SHARED_NAME}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
install(FILES "${ZT_LIB_DIR}/${ZT_STATIC_NAME}" DESTINATION "${CMAKE_INSTALL_LIBDIR}")
install(FILES "${ZT_ROOT}/include/ztensor.h" "${ZT_ROOT}/include/ztensor.hpp"
        DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

configure_package_config_file("${_zt_here}/ztensorConfig.cmake.in" "${_zt_out}/ztensorConfig.cmake"
  INSTALL_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/ztensor"
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# 0.x: a minor version may break the API.
write_basic_package_version_file("${_zt_out}/ztensorConfigVersion.cmake"
  VERSION "${ZT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${_zt_out}/ztensorConfig.cmake" "${_zt_out}/ztensorConfigVersion.cmake"
        DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/ztensor")

# The .pc files name the prefix installed to (`cmake --install --prefix`
# decides it), so pkg-config prints clean absolute paths.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  message(FATAL_ERROR "CMAKE_INSTALL_LIBDIR and CMAKE_INSTALL_INCLUDEDIR must be relative for ztensor.pc")
endif()
foreach(pc ztensor ztensor-static)
  install(CODE "
    set(ZT_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
    set(CMAKE_INSTALL_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
    set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
    set(ZT_VERSION \"${ZT_VERSION}\")
    set(ZT_STATIC_NAME \"${ZT_STATIC_NAME}\")
    set(ZT_STATIC_PC_LIBS \"${ZT_STATIC_PC_LIBS}\")
    configure_file(\"${_zt_here}/${pc}.pc.in\" \"${_zt_out}/${pc}.pc\" @ONLY)")
  install(FILES "${_zt_out}/${pc}.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
endforeach()
