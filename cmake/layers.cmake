# The layers (issue 45): each row of README.md's "Layout" table is a static
# library of one folder, linked PUBLIC to the rows it may depend on, so a
# folder can only use what its row declares (as FoundationDB declares fdbrpc
# on flow). tests/layers/check_layers.py (ctest layers.*) reads the manifest
# written below and checks every project #include of every source against it,
# that the declared graph has no cycle, and that README.md's table says the
# same thing.
#
#   cnx_layer(NAME FOLDER [DEPENDS layer...] [LIBS target...] [PRIVATE_LIBS target...]
#             [EXCLUDE regex...])
#
# DEPENDS are other layers (checked: each must be declared before); LIBS and
# PRIVATE_LIBS are outside libraries (Boost, OpenSSL, yaml-cpp ...), not
# checked. FOLDER is relative to the project root; its sources are every .cc
# under it (recursively), but for those matching an EXCLUDE regex.
set_property(GLOBAL PROPERTY CNX_LAYERS "")

function(cnx_layer name folder)
  cmake_parse_arguments(L "" "" "DEPENDS;LIBS;PRIVATE_LIBS;EXCLUDE" ${ARGN})
  foreach(dep IN LISTS L_DEPENDS)
    get_property(known GLOBAL PROPERTY CNX_LAYER_FOLDER_${dep})
    if(NOT known)
      message(FATAL_ERROR "cnx_layer(${name}): ${dep} is not a layer declared before it")
    endif()
  endforeach()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${folder}/*.cc)
  foreach(pattern IN LISTS L_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${pattern}")
  endforeach()
  add_library(${name} STATIC ${sources})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${L_DEPENDS} ${L_LIBS})
  if(L_PRIVATE_LIBS)
    target_link_libraries(${name} PRIVATE ${L_PRIVATE_LIBS})
  endif()
  set_property(GLOBAL PROPERTY CNX_LAYER_FOLDER_${name} ${folder})
  set_property(GLOBAL APPEND PROPERTY CNX_LAYERS ${name})
  set_property(GLOBAL PROPERTY CNX_LAYER_DEPENDS_${name} "${L_DEPENDS}")
endfunction()

# A library made otherwise (proto/: protoc's output) registered as the layer of FOLDER.
function(cnx_register_layer name folder)
  set_property(GLOBAL PROPERTY CNX_LAYER_FOLDER_${name} ${folder})
  set_property(GLOBAL APPEND PROPERTY CNX_LAYERS ${name})
  set_property(GLOBAL PROPERTY CNX_LAYER_DEPENDS_${name} "")
endfunction()

# The manifest for the include check: {"layers": [{"name", "folder", "depends"}...]}.
function(cnx_write_layer_manifest file)
  get_property(layers GLOBAL PROPERTY CNX_LAYERS)
  set(rows "")
  foreach(name IN LISTS layers)
    get_property(folder GLOBAL PROPERTY CNX_LAYER_FOLDER_${name})
    get_property(deps GLOBAL PROPERTY CNX_LAYER_DEPENDS_${name})
    set(quoted "")
    foreach(d IN LISTS deps)
      list(APPEND quoted "\"${d}\"")
    endforeach()
    list(JOIN quoted ", " quoted)
    list(APPEND rows "    {\"name\": \"${name}\", \"folder\": \"${folder}\", \"depends\": [${quoted}]}")
  endforeach()
  list(JOIN rows ",\n" body)
  file(WRITE ${file} "{\"layers\": [\n${body}\n]}\n")
endfunction()
