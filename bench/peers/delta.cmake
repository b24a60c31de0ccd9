# Arrow C++'s DELTA_BINARY_PACKED decoder (libparquet from the pyarrow wheel)
# on the pages of bench/delta_bench.cc. `pqfast bench delta` runs it.
pqfast_arrow_peer(arrow_delta_bench ${CMAKE_CURRENT_LIST_DIR}/arrow_delta_bench.cc)
