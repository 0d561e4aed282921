# ctest driver of differential.avro_java: finds the JDK and Debian's Avro Java
# jars, compiles the harness into the build directory, runs the comparison.
# Anything missing fails the test naming the Debian package that provides it.
#   -DDRIVER=<avro_java_differential> -DHARNESS_SOURCE=<.java> -DWORK=<dir> [-DDRIVER_ARGS=<more words>]
# (also the driver of differential.compat_java_corpus, whose DRIVER_ARGS name cnxsim).

function(require_package what package)
  message(FATAL_ERROR "differential.avro_java: ${what} not found; install the Debian package '${package}' "
                      "(apt-get install ${package}; scripts/bootstrap test installs it)")
endfunction()

find_program(JAVAC javac)
find_program(JAVA java)
if(NOT JAVAC)
  require_package("javac (JDK)" default-jdk-headless)
endif()
if(NOT JAVA)
  require_package("java" default-jdk-headless)
endif()

# libavro-java and the jars it depends on (dpkg -L libavro-java and its Depends).
set(JAR_DIR /usr/share/java)
set(JARS
  "avro.jar=libavro-java"
  "jackson-core-asl.jar=libjackson-json-java"
  "jackson-mapper-asl.jar=libjackson-json-java"
  "paranamer.jar=libparanamer-java"
  "snappy-java.jar=libsnappy-java"
  "commons-compress.jar=libcommons-compress-java"
  "xz.jar=libxz-java"
  "slf4j-api.jar=libslf4j-java"
  "slf4j-nop.jar=libslf4j-java")
set(CLASSPATH "")
foreach(entry ${JARS})
  string(REPLACE "=" ";" parts "${entry}")
  list(GET parts 0 jar)
  list(GET parts 1 package)
  if(NOT EXISTS ${JAR_DIR}/${jar})
    require_package("${JAR_DIR}/${jar}" ${package})
  endif()
  string(APPEND CLASSPATH "${JAR_DIR}/${jar}:")
endforeach()

set(CLASSES ${WORK}/classes)
file(MAKE_DIRECTORY ${CLASSES})
execute_process(COMMAND ${JAVAC} -nowarn -cp ${CLASSPATH} -d ${CLASSES} ${HARNESS_SOURCE}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "differential.avro_java: javac failed (${rc}) on ${HARNESS_SOURCE}")
endif()

execute_process(COMMAND ${DRIVER} --java ${JAVA} --classpath ${CLASSPATH}${CLASSES} --work ${WORK} ${DRIVER_ARGS}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "differential.avro_java: failed (exit ${rc})")
endif()
