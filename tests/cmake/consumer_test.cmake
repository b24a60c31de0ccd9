# Installs pqfast from BUILD_DIR into a scratch prefix, then configures,
# builds and runs a consumer that uses find_package(pqfast).
set(prefix "${BUILD_DIR}/consumer-test/prefix")
file(REMOVE_RECURSE "${BUILD_DIR}/consumer-test")
execute_process(COMMAND ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}" --component Unspecified
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/cmake/consumer" -B "${BUILD_DIR}/consumer-test/build"
                -G Ninja -DCMAKE_PREFIX_PATH=${prefix} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer configure failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD_DIR}/consumer-test/build" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer build failed")
endif()
execute_process(COMMAND "${BUILD_DIR}/consumer-test/build/consumer" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "consumer failed: ${out}")
endif()
message(STATUS "consumer: ${out}")
