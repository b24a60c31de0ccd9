# Arrow C++'s own reading of Bloom filters, for the interop tests.
pqfast_arrow_peer(arrow_sbbf_probe ${CMAKE_CURRENT_LIST_DIR}/arrow_sbbf_probe.cc)
