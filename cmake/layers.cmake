# The layers of Tharsis, lowest first, and what each may use (README "Project layout").
# A file belongs to the layer of its folder; a program's own folder (one with a main.cpp,
# and a daemon's main.cpp) is in a programs layer. A file may include only headers of its
# own layer or of the layers it USES; within a layer, folders must not include each other
# in a circle. cmake/check_layers.cmake enforces both on every build, and each layer is a
# library that links only the layers it uses (CMakeLists.txt), so a wrong include fails.
#
# Each entry: NAME | folder patterns (regexes on a file's folder, from the source root,
#             comma-separated) | layers used (comma-separated).
set(THARSIS_LAYERS
  "base|^lib$,^lib/crypto$,^lib/protocol$|"
  "engines|^lib/operand$,^lib/recluster$|base"
  "config|^lib/config$|base,engines"
  "client|^client/lib$|base,engines,config"
  "db|^db$|base,engines,config"
  "runtime|^lib/daemon$,^lib/web$,^lib/work$|base,engines,config,db"
  "daemons|^daemons/[a-z_]+$,^daemons/[a-z_]+/lib$|base,engines,config,db,runtime"
  "tools|^tools/lib$|base,engines,config,client,db,runtime,daemons"
  "sched|^sched/lib$,^sched/lib/submit$,^sched/lib/rpc$|base,engines,config,db,runtime,daemons,tools"
  "volunteer_programs|^client/[a-z_-]+$|base,engines,config,client"
  "programs|^daemons/[a-z_]+/main$,^tools/[a-z_-]+$,^sched/[a-z_]+$,^html/[a-z_]+$,^bench/[a-z_]+$|base,engines,config,client,db,runtime,daemons,tools,sched")

# The layer of a source file (path from the source root) into `out` ("" if none).
# A daemon's main.cpp is looked up as folder "daemons/<name>/main".
function(tharsis_layer_of path out)
  get_filename_component(folder "${path}" DIRECTORY)
  if(path MATCHES "^daemons/[a-z_]+/main\\.cpp$")
    set(folder "${folder}/main")
  endif()
  foreach(entry ${THARSIS_LAYERS})
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 name)
    list(GET fields 1 patterns)
    string(REPLACE "," ";" patterns "${patterns}")
    foreach(pattern ${patterns})
      if(folder MATCHES "${pattern}")
        set(${out} "${name}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# The layers `layer` may use, into `out`.
function(tharsis_layer_uses layer out)
  foreach(entry ${THARSIS_LAYERS})
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 name)
    if(name STREQUAL layer)
      list(LENGTH fields n)
      set(uses "")
      if(n GREATER 2)
        list(GET fields 2 uses)
        string(REPLACE "," ";" uses "${uses}")
      endif()
      set(${out} "${uses}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# The folder a file counts as for the cycle check: a daemon's rules, lib/ and main are one.
function(tharsis_component_of path out)
  get_filename_component(folder "${path}" DIRECTORY)
  if(folder MATCHES "^(daemons/[a-z_]+)")
    set(folder "${CMAKE_MATCH_1}")
  endif()
  set(${out} "${folder}" PARENT_SCOPE)
endfunction()
