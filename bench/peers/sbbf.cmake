# SBBF side by side with Arrow C++ 26 (parquet::BlockSplitBloomFilter from the
# pyarrow wheel's libparquet): same filters, same hashes, same process.
pqfast_arrow_peer(arrow_sbbf_bench ${CMAKE_CURRENT_LIST_DIR}/arrow_sbbf_bench.cc)
