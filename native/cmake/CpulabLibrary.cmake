# cpulab_add_library(NAME): a shipped library from lib/NAME/library.json.
#
# The manifest is the library's one recipe: its sources, the system libraries it needs
# ("pthread" becomes Threads::Threads), the optional ones it uses when they are found
# (each with the header that shows it is installed and the macro that tells the sources;
# CPULAB_WITHOUT lists those not to use even when found), objects bundled into it when
# built (`bundled`: its name, the object and include folder under CPULAB_BUNDLE_DIR, the
# macro, the script that builds it), options only one compiler
# family takes. The layout and the names are fixed by convention and so not repeated in
# it: include/NAME.h is the one public header (its NAME_VERSION_* macros, NAME in upper
# case, give the version), every API symbol starts with NAME_ (the shared library exports
# those and hides its NAME__internals), and the library's own folder is its private
# include root ("internal/x.h").
#
# It makes NAME (shared, libcpulab-NAME.so.MAJOR) and NAME_static (libcpulab-NAME.a) from
# one set of position-independent objects, exported as cpulab::NAME and
# cpulab::NAME_static, plus cpulab-NAME.pc.

# cpulab_json_list(OUT JSON KEY...): the array at the path KEY... of JSON, as a list (empty
# when the path is absent).
function(cpulab_json_list out json)
  set(items "")
  string(JSON kind ERROR_VARIABLE missing TYPE "${json}" ${ARGN})
  if(NOT missing)
    string(JSON n LENGTH "${json}" ${ARGN})
    if(n GREATER 0)
      math(EXPR last "${n} - 1")
      foreach(i RANGE ${last})
        string(JSON item GET "${json}" ${ARGN} ${i})
        list(APPEND items "${item}")
      endforeach()
    endif()
  endif()
  set(${out} "${items}" PARENT_SCOPE)
endfunction()

function(cpulab_add_library name)
  set(dir "${CMAKE_CURRENT_SOURCE_DIR}")
  file(READ "${dir}/library.json" manifest)
  string(JSON description GET "${manifest}" description)
  cpulab_json_list(sources "${manifest}" sources)
  cpulab_json_list(system_libraries "${manifest}" system_libraries)
  cpulab_json_list(clang_options "${manifest}" compile_options clang)
  cpulab_json_list(gcc_options "${manifest}" compile_options gcc)
  list(TRANSFORM sources PREPEND "${dir}/")

  # Optional system libraries: used when both the library and its header are found.
  set(optional_defines "")
  string(JSON n_optional ERROR_VARIABLE no_optional LENGTH "${manifest}" optional_libraries)
  if(NOT no_optional AND n_optional GREATER 0)
    math(EXPR last "${n_optional} - 1")
    foreach(i RANGE ${last})
      string(JSON opt_lib GET "${manifest}" optional_libraries ${i} library)
      string(JSON opt_header GET "${manifest}" optional_libraries ${i} header)
      string(JSON opt_define GET "${manifest}" optional_libraries ${i} define)
      find_library(CPULAB_OPTIONAL_${opt_lib}_LIBRARY ${opt_lib})
      find_path(CPULAB_OPTIONAL_${opt_lib}_INCLUDE_DIR ${opt_header})
      if(opt_lib IN_LIST CPULAB_WITHOUT)
        message(STATUS "${name}: ${opt_lib} not used (CPULAB_WITHOUT)")
      elseif(CPULAB_OPTIONAL_${opt_lib}_LIBRARY AND CPULAB_OPTIONAL_${opt_lib}_INCLUDE_DIR)
        message(STATUS "${name}: using ${opt_lib} (${opt_define})")
        list(APPEND system_libraries ${opt_lib})
        list(APPEND optional_defines ${opt_define})
      else()
        message(STATUS "${name}: ${opt_lib} not found (no lib${opt_lib} or ${opt_header})")
      endif()
    endforeach()
  endif()

  # Bundled objects: built from a registry's sources into the build folder by the entry's
  # script (built_by), and linked into the library itself, shared and static alike, so that
  # they add no dependency to install. Used when built, as optional libraries are when found.
  set(bundled_objects "")
  set(bundled_includes "")
  string(JSON n_bundled ERROR_VARIABLE no_bundled LENGTH "${manifest}" bundled)
  if(NOT no_bundled AND n_bundled GREATER 0)
    math(EXPR last "${n_bundled} - 1")
    foreach(i RANGE ${last})
      foreach(key IN ITEMS name object include define built_by)
        string(JSON b_${key} GET "${manifest}" bundled ${i} ${key})
      endforeach()
      set(b_object_path "${CPULAB_BUNDLE_DIR}/${b_object}")
      if(b_name IN_LIST CPULAB_WITHOUT)
        message(STATUS "${name}: ${b_name} not used (CPULAB_WITHOUT)")
      elseif(EXISTS "${b_object_path}")
        message(STATUS "${name}: using ${b_name} (${b_define}, ${b_object_path})")
        list(APPEND bundled_objects "${b_object_path}")
        list(APPEND bundled_includes "${CPULAB_BUNDLE_DIR}/${b_include}")
        list(APPEND optional_defines ${b_define})
      else()
        message(STATUS "${name}: ${b_name} not built (${dir}/${b_built_by} builds it)")
      endif()
    endforeach()
  endif()

  set(header "${dir}/include/${name}.h")
  string(TOUPPER "${name}" upper)
  set(version "")
  foreach(part IN ITEMS MAJOR MINOR PATCH)
    file(STRINGS "${header}" line REGEX "^#define ${upper}_VERSION_${part} [0-9]+$")
    if(NOT line MATCHES " ([0-9]+)$")
      message(FATAL_ERROR "${header}: no ${upper}_VERSION_${part} macro")
    endif()
    list(APPEND version "${CMAKE_MATCH_1}")
  endforeach()
  list(GET version 0 major)
  list(JOIN version "." version)

  # The public header is also staged as include/cpulab/NAME.h in the build tree, so that a
  # project using this tree directly includes it as it would once installed.
  set(staged "${PROJECT_BINARY_DIR}/include")
  configure_file("${header}" "${staged}/cpulab/${name}.h" COPYONLY)

  set(links "")
  foreach(l IN LISTS system_libraries)
    if(l STREQUAL "pthread")
      list(APPEND links Threads::Threads)
    else()
      list(APPEND links "${l}")
    endif()
  endforeach()

  add_library(${name}_objects OBJECT ${sources})
  set_target_properties(${name}_objects PROPERTIES
    POSITION_INDEPENDENT_CODE ON C_STANDARD 11 C_EXTENSIONS ON C_STANDARD_REQUIRED ON)
  target_include_directories(${name}_objects PRIVATE "${dir}/include" "${dir}" ${bundled_includes})
  target_compile_definitions(${name}_objects PRIVATE ${optional_defines})
  # One SHELL: group per family, so that CMake does not fold repeated words ("-mllvm").
  foreach(family IN ITEMS clang gcc)
    if(${family}_options)
      list(JOIN ${family}_options " " joined)
      set(id Clang)
      if(family STREQUAL "gcc")
        set(id GNU)
      endif()
      target_compile_options(${name}_objects PRIVATE "$<$<C_COMPILER_ID:${id}>:SHELL:${joined}>")
    endif()
  endforeach()
  target_link_libraries(${name}_objects PRIVATE ${links})

  add_library(${name} SHARED $<TARGET_OBJECTS:${name}_objects> ${bundled_objects})
  add_library(${name}_static STATIC $<TARGET_OBJECTS:${name}_objects> ${bundled_objects})
  set_target_properties(${name} PROPERTIES
    OUTPUT_NAME cpulab-${name} VERSION ${version} SOVERSION ${major}
    EXPORT_NAME ${name})
  # Every symbol a program needs must be found at link time, not at load time; and the
  # shared library exports its API (NAME_x) but not its internals (NAME__x).
  set(exports "${PROJECT_BINARY_DIR}/exports/${name}.map")
  file(WRITE "${exports}" "{\n  global: ${name}_[!_]*;\n  local: *;\n};\n")
  target_link_options(${name} PRIVATE "LINKER:--version-script=${exports}")
  if(NOT CPULAB_SANITIZE) # clang leaves the sanitizer runtime to the executable
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
  set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${exports}")
  set_target_properties(${name}_static PROPERTIES
    OUTPUT_NAME cpulab-${name} EXPORT_NAME ${name}_static)
  foreach(t IN ITEMS ${name} ${name}_static)
    target_include_directories(${t} PUBLIC
      "$<BUILD_INTERFACE:${staged}>" "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
    target_link_libraries(${t} PRIVATE ${links})
  endforeach()
  add_library(cpulab::${name} ALIAS ${name})
  add_library(cpulab::${name}_static ALIAS ${name}_static)

  install(TARGETS ${name} ${name}_static EXPORT cpulabTargets
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES "${header}" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cpulab)

  # pkg-config: relocatable, the prefix found from the .pc file's own place.
  file(RELATIVE_PATH pc_to_prefix "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
  string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
  set(pc_libs_private "")
  foreach(l IN LISTS system_libraries)
    string(APPEND pc_libs_private " -l${l}")
  endforeach()
  string(STRIP "${pc_libs_private}" pc_libs_private)
  configure_file("${PROJECT_SOURCE_DIR}/cmake/library.pc.in"
                 "${PROJECT_BINARY_DIR}/pkgconfig/cpulab-${name}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/cpulab-${name}.pc"
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

  # The library's command, where its manifest names one: built on the static library
  # and installed beside it.
  string(JSON command ERROR_VARIABLE no_command GET "${manifest}" command name)
  if(NOT no_command)
    cpulab_json_list(command_sources "${manifest}" command sources)
    list(TRANSFORM command_sources PREPEND "${dir}/")
    add_executable(${name}_cli ${command_sources})
    set_target_properties(${name}_cli PROPERTIES
      OUTPUT_NAME ${command} C_STANDARD 11 C_EXTENSIONS ON)
    target_include_directories(${name}_cli PRIVATE "${dir}/include")
    target_link_libraries(${name}_cli PRIVATE ${name}_static)
    install(TARGETS ${name}_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()

  set_property(GLOBAL APPEND PROPERTY CPULAB_LIBRARIES ${name})
  set(${name}_VERSION "${version}" PARENT_SCOPE)
  set(${name}_OPTIONAL_DEFINES "${optional_defines}" PARENT_SCOPE)
endfunction()

# cpulab_add_test(EXE SOURCES... [LIBS ...] [ARGS ...] [NAME TEST]): a C test driver EXE
# linked with the current folder's library (statically, as the lab builds it), run by
# ctest as TEST (default: EXE) with ARGS and labelled with the library's name. The driver
# may include the library's private headers. One EXE may back several tests.
function(cpulab_add_test exe)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS;ARGS" ${ARGN})
  get_filename_component(lib "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  if(NOT T_NAME)
    set(T_NAME ${exe})
  endif()
  if(NOT TARGET ${exe})
    add_executable(${exe} ${T_SOURCES})
    set_target_properties(${exe} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
    target_include_directories(${exe} PRIVATE
      "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
    target_link_libraries(${exe} PRIVATE ${lib}_static ${T_LIBS})
  endif()
  add_test(NAME ${lib}.${T_NAME} COMMAND ${exe} ${T_ARGS})
  set_tests_properties(${lib}.${T_NAME} PROPERTIES LABELS ${lib})
endfunction()

# cpulab_add_fuzz_test(EXE SOURCES... RUNS N [CORPUS DIR] [ENVIRONMENT VAR=VALUE...]):
# a libFuzzer target (clang, CPULAB_SANITIZE) over the current folder's library, run by
# ctest for N inputs with a fixed seed, starting from a copy of the files of CORPUS.
# The long runs with a seed corpus are in the Python suite.
function(cpulab_add_fuzz_test exe)
  if(NOT CPULAB_FUZZ)
    return()
  endif()
  cmake_parse_arguments(F "" "RUNS;CORPUS" "SOURCES;ENVIRONMENT" ${ARGN})
  get_filename_component(lib "${CMAKE_CURRENT_SOURCE_DIR}" NAME)
  add_executable(${exe} ${F_SOURCES})
  set_target_properties(${exe} PROPERTIES C_STANDARD 11 C_EXTENSIONS ON)
  target_include_directories(${exe} PRIVATE
    "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${exe} PRIVATE ${lib}_static)
  target_link_options(${exe} PRIVATE -fsanitize=fuzzer)
  set(corpus "${CMAKE_CURRENT_BINARY_DIR}/${exe}-corpus")
  file(MAKE_DIRECTORY "${corpus}")
  if(F_CORPUS)
    file(GLOB seeds "${F_CORPUS}/*")
    file(COPY ${seeds} DESTINATION "${corpus}")
  endif()
  add_test(NAME ${lib}.${exe} COMMAND ${exe} -runs=${F_RUNS} -seed=1 "${corpus}")
  set_tests_properties(${lib}.${exe} PROPERTIES LABELS "${lib};fuzz"
                       ENVIRONMENT "${F_ENVIRONMENT}")
endfunction()

# The CMake package `cpulab`, installed once every library has been added.
function(cpulab_install_package)
  include(CMakePackageConfigHelpers)
  get_property(CPULAB_LIBRARY_LIST GLOBAL PROPERTY CPULAB_LIBRARIES)
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/cpulab)
  install(EXPORT cpulabTargets NAMESPACE cpulab:: DESTINATION ${cmake_dir})
  configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/cpulabConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/cpulabConfig.cmake" INSTALL_DESTINATION ${cmake_dir})
  write_basic_package_version_file("${PROJECT_BINARY_DIR}/cpulabConfigVersion.cmake"
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES "${PROJECT_BINARY_DIR}/cpulabConfig.cmake"
                "${PROJECT_BINARY_DIR}/cpulabConfigVersion.cmake" DESTINATION ${cmake_dir})
endfunction()
