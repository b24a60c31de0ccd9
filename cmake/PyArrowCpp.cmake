# Arrow C++ and libparquet as shipped inside the pyarrow wheel (the peer we
# compare against). Defines the imported target pqfast_peer::parquet when
# found; peers are optional and never part of the library.
if(TARGET pqfast_peer::parquet)
  return()
endif()
if(NOT Python_EXECUTABLE)
  find_package(Python 3.9 COMPONENTS Interpreter)
endif()
if(Python_EXECUTABLE)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" -c "import pyarrow, os; print(pyarrow.get_include()); print(os.path.dirname(pyarrow.__file__))"
    OUTPUT_VARIABLE _pa_out RESULT_VARIABLE _pa_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(Python_EXECUTABLE AND _pa_rc EQUAL 0)
  string(REPLACE "\n" ";" _pa_lines "${_pa_out}")
  list(GET _pa_lines 0 PYARROW_INCLUDE_DIR)
  list(GET _pa_lines 1 PYARROW_LIB_DIR)
  file(GLOB _pa_parquet "${PYARROW_LIB_DIR}/libparquet.so.*")
  file(GLOB _pa_arrow "${PYARROW_LIB_DIR}/libarrow.so.[0-9]*")
  if(_pa_parquet AND _pa_arrow AND EXISTS "${PYARROW_INCLUDE_DIR}/parquet/bloom_filter.h")
    list(GET _pa_parquet 0 _pa_parquet)
    list(GET _pa_arrow 0 _pa_arrow)
    add_library(pqfast_peer::arrow SHARED IMPORTED)
    set_target_properties(pqfast_peer::arrow PROPERTIES IMPORTED_LOCATION "${_pa_arrow}"
      INTERFACE_INCLUDE_DIRECTORIES "${PYARROW_INCLUDE_DIR}")
    add_library(pqfast_peer::parquet SHARED IMPORTED)
    set_target_properties(pqfast_peer::parquet PROPERTIES IMPORTED_LOCATION "${_pa_parquet}"
      INTERFACE_INCLUDE_DIRECTORIES "${PYARROW_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES pqfast_peer::arrow)
    # The wheel's libraries find each other through their RUNPATH; executables
    # that link them get the directory as an rpath too.
    set(PQFAST_PEER_ARROW_RPATH "${PYARROW_LIB_DIR}")
    message(STATUS "pqfast peers: Arrow C++ from pyarrow at ${PYARROW_LIB_DIR}")
  endif()
endif()
if(NOT TARGET pqfast_peer::parquet)
  message(STATUS "pqfast peers: pyarrow's Arrow C++ not found; Arrow side-by-side drivers skipped")
endif()
