# The RocksDB peer of the local_bloom family: pqfast_peer_local_bloom times
# RocksDB 7.8.3's own FastLocalBloom builder and reader (Debian's
# librocksdb-dev) with the same loops as `pqfast bench local-bloom`, printing
# JSON rows that the Python bench merges into its tables.
if(NOT CMAKE_CROSSCOMPILING)  # the host's librocksdb is not the target's
  find_path(PQFAST_ROCKSDB_INCLUDE_DIR rocksdb/filter_policy.h)
  find_library(PQFAST_ROCKSDB_LIBRARY rocksdb)
endif()
if(PQFAST_ROCKSDB_INCLUDE_DIR AND PQFAST_ROCKSDB_LIBRARY)
  add_executable(pqfast_peer_local_bloom ${CMAKE_CURRENT_LIST_DIR}/local_bloom_rocksdb.cc)
  target_link_libraries(pqfast_peer_local_bloom PRIVATE pqfast pqfast_bench ${PQFAST_ROCKSDB_LIBRARY})
  target_include_directories(pqfast_peer_local_bloom PRIVATE ${PQFAST_ROCKSDB_INCLUDE_DIR}
    ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/bench ${CMAKE_CURRENT_LIST_DIR})
  set_target_properties(pqfast_peer_local_bloom PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/peers)
  message(STATUS "pqfast peers: RocksDB found; building pqfast_peer_local_bloom")
else()
  message(STATUS "pqfast peers: RocksDB not found; no local_bloom peer")
endif()
