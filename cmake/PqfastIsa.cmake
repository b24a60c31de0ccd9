# Per-ISA compilation: no global -m flags. A kernel family lives in
# src/<family>/; a source whose name starts with an ISA name (sse4*.cc,
# avx2*.cc, avx512*.cc, neon*.cc) is compiled with that ISA's target flags
# and only on the architecture that has it. Everything else is portable.

if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|x64)$")
  set(PQFAST_ARCH "x86")
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(PQFAST_ARCH "arm64")
else()
  set(PQFAST_ARCH "generic")
endif()

# x86-64-v2, x86-64-v3 and an Ice Lake / Zen 4 class AVX-512 subset.
set(PQFAST_ISA_FLAGS_sse4 -msse4.2 -mpopcnt)
set(PQFAST_ISA_FLAGS_avx2 -msse4.2 -mpopcnt -mavx2 -mbmi -mbmi2 -mfma -mlzcnt)
set(PQFAST_ISA_FLAGS_avx512 ${PQFAST_ISA_FLAGS_avx2}
    -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512vbmi -mavx512vbmi2
    -Wno-maybe-uninitialized)  # GCC 12 false positives inside its own intrinsics headers
set(PQFAST_ISA_FLAGS_neon "")  # Advanced SIMD is baseline on AArch64

# Appends the family's sources to OUT_VAR, setting per-file ISA flags.
function(pqfast_family_sources family out_var)
  file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${family}/*.cc")
  set(kept "")
  foreach(src IN LISTS sources)
    get_filename_component(name "${src}" NAME)
    set(isa "")
    foreach(candidate avx512 avx2 sse4 neon)
      if(name MATCHES "^${candidate}")
        set(isa ${candidate})
        break()
      endif()
    endforeach()
    if(isa STREQUAL "")
      list(APPEND kept "${src}")
    elseif(isa STREQUAL "neon")
      if(PQFAST_ARCH STREQUAL "arm64")
        list(APPEND kept "${src}")
      endif()
    elseif(PQFAST_ARCH STREQUAL "x86")
      set_source_files_properties("${src}" PROPERTIES COMPILE_OPTIONS "${PQFAST_ISA_FLAGS_${isa}}")
      list(APPEND kept "${src}")
    endif()
  endforeach()
  set(${out_var} ${${out_var}} ${kept} PARENT_SCOPE)
endfunction()
