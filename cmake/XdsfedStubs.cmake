# xdsfed_generate_stubs(TARGET PROTOS a.proto ... [IMPORT_DIRS dir ...]
#                       [OUT_DIR dir])
#
# For each .proto, runs protoc with its C++ generator, gRPC's
# grpc_cpp_plugin and protoc-gen-xdsfed-stubs (codegen/stub_generator.h),
# adds the generated code to TARGET and links what it needs:
#   helloworld.proto -> helloworld.pb.h/.cc, helloworld.grpc.pb.h/.cc,
#                       helloworld.xds_stub.h (class helloworld::GreeterXdsStub)
# included as "helloworld.xds_stub.h" (paths relative to the import
# directory the proto is found in: IMPORT_DIRS, else the proto's own
# directory). PROTOS are relative to the current source directory or
# absolute. OUT_DIR defaults to ${CMAKE_CURRENT_BINARY_DIR}/xdsfed_stubs.
#
# Works in this tree and after find_package(xdsfed) (the plugin is the
# exported xdsfed::protoc-gen-xdsfed-stubs).
function(xdsfed_generate_stubs target)
  cmake_parse_arguments(A "" "OUT_DIR" "PROTOS;IMPORT_DIRS" ${ARGN})
  if(NOT A_PROTOS)
    message(FATAL_ERROR "xdsfed_generate_stubs(${target}): no PROTOS")
  endif()
  if(NOT A_OUT_DIR)
    set(A_OUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/xdsfed_stubs)
  endif()
  if(TARGET xdsfed::protoc-gen-xdsfed-stubs)
    set(plugin xdsfed::protoc-gen-xdsfed-stubs)
  else()
    set(plugin protoc-gen-xdsfed-stubs)
  endif()
  file(MAKE_DIRECTORY ${A_OUT_DIR})
  set(import_dirs "")
  foreach(dir ${A_IMPORT_DIRS})
    get_filename_component(dir ${dir} ABSOLUTE)
    list(APPEND import_dirs ${dir})
  endforeach()
  foreach(proto ${A_PROTOS})
    get_filename_component(proto ${proto} ABSOLUTE)
    # The import directory that holds it: the first IMPORT_DIRS prefix.
    set(base "")
    foreach(dir ${import_dirs})
      string(FIND "${proto}" "${dir}/" at)
      if(at EQUAL 0)
        set(base ${dir})
        break()
      endif()
    endforeach()
    if(NOT base)
      get_filename_component(base ${proto} DIRECTORY)
    endif()
    set(include_args -I${base})
    foreach(dir ${import_dirs})
      if(NOT dir STREQUAL base)
        list(APPEND include_args -I${dir})
      endif()
    endforeach()
    file(RELATIVE_PATH rel ${base} ${proto})
    string(REGEX REPLACE "\\.proto$" "" stem ${rel})
    set(out ${A_OUT_DIR}/${stem})
    add_custom_command(
      OUTPUT ${out}.pb.h ${out}.pb.cc ${out}.grpc.pb.h ${out}.grpc.pb.cc
             ${out}.xds_stub.h
      COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
              $<TARGET_FILE:protobuf::protoc> ${include_args}
              --cpp_out=${A_OUT_DIR} --grpc_out=${A_OUT_DIR}
              --xdsfed-stubs_out=${A_OUT_DIR}
              --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin>
              --plugin=protoc-gen-xdsfed-stubs=$<TARGET_FILE:${plugin}>
              ${proto}
      DEPENDS ${proto} ${plugin} gRPC::grpc_cpp_plugin protobuf::protoc
      COMMENT "xdsfed_generate_stubs ${rel}"
      VERBATIM)
    target_sources(${target} PRIVATE ${out}.pb.cc ${out}.grpc.pb.cc
                                     ${out}.xds_stub.h)
    # protoc's and gRPC's generated code is not ours to keep warning-free.
    set_source_files_properties(${out}.pb.cc ${out}.grpc.pb.cc
      TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS -w)
  endforeach()
  target_include_directories(${target} SYSTEM PUBLIC ${A_OUT_DIR})
  target_link_libraries(${target} PUBLIC xdsfed::channel gRPC::grpc++
                                         protobuf::libprotobuf)
endfunction()
