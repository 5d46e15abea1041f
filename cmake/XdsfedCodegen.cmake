# xdsfed_schema_library(NAME PROTOS schema/a.proto ... [DEPS ...] [NO_INSTALL])
#
# Runs protoc with our plugin (codegen/, target protoc-gen-xdsfed) over each
# schema .proto (paths relative to the repo root) and builds the generated
# structs + JSON loaders into a static library:
#   schema/a.proto -> ${XDSFED_GEN_DIR}/schema/a.xds.h and a.xds.cc
# Included as "schema/a.xds.h". With NO_INSTALL (test schemas) the library is
# a plain target NAME that is neither installed nor part of xdsfed::xdsfed;
# otherwise it is xdsfed::NAME via xdsfed_library().
#
# The plugin also runs under sanitizer builds; LeakSanitizer is switched off
# for it because libprotobuf keeps some allocations until exit by design.
function(xdsfed_schema_library name)
  cmake_parse_arguments(A "NO_INSTALL" "" "PROTOS;DEPS" ${ARGN})
  set(include_args -I${PROJECT_SOURCE_DIR})
  foreach(dir ${Protobuf_INCLUDE_DIRS})
    list(APPEND include_args -I${dir})
  endforeach()
  # Any schema may import any other; regenerate when one changes.
  file(GLOB proto_files ${PROJECT_SOURCE_DIR}/schema/*.proto)
  foreach(proto ${A_PROTOS})
    list(APPEND proto_files ${PROJECT_SOURCE_DIR}/${proto})
  endforeach()
  set(srcs "")
  foreach(proto ${A_PROTOS})
    string(REGEX REPLACE "\\.proto$" "" base ${proto})
    set(header ${XDSFED_GEN_DIR}/${base}.xds.h)
    set(source ${XDSFED_GEN_DIR}/${base}.xds.cc)
    add_custom_command(
      OUTPUT ${header} ${source}
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
              $<TARGET_FILE:protobuf::protoc>
              --plugin=protoc-gen-xdsfed=$<TARGET_FILE:protoc-gen-xdsfed>
              ${include_args} --xdsfed_out=${XDSFED_GEN_DIR} ${proto}
      DEPENDS ${proto_files} protoc-gen-xdsfed
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      COMMENT "protoc-gen-xdsfed ${proto}"
      VERBATIM)
    list(APPEND srcs ${source})
  endforeach()
  # What the generated code includes (codegen/generator.cc writes the
  # #include lines; cmake/CheckDeps.cmake keeps the two equal).
  set(generated_deps xdsfed::json xdsfed::base absl::status absl::statusor
      absl::strings absl::time JsonCpp::JsonCpp)
  if(A_NO_INSTALL)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}
                                              ${XDSFED_GEN_DIR})
    target_link_libraries(${name} PUBLIC ${generated_deps} ${A_DEPS})
  else()
    xdsfed_library(${name} SRCS ${srcs} DEPS ${generated_deps} ${A_DEPS})
  endif()
endfunction()
