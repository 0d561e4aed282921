# Shared by run-broker and resolve (sourced): which release a version names,
# and the launcher jar and that release's classpath, built and resolved once.
# Callers define die STATUS MESSAGE and set $here to this folder.

# oracle_release VERSION: sets release and java_major from versions.txt. A line
# (4.2) names its pinned release; a release X.Y.Z is taken as given, with its
# line's Java.
oracle_release() {
  local want="$1" line rel jmaj
  release=""; java_major=17
  while read -r line rel jmaj; do
    case "$line" in ''|'#'*) continue ;; esac
    if [ "$want" = "$line" ] || [ "$want" = "$rel" ]; then release="$rel"; java_major="$jmaj"; fi
    case "$want" in "$line".*) [ -z "$release" ] && java_major="$jmaj" ;; esac
  done < "$here/versions.txt"
  if [ -z "$release" ]; then
    [[ "$want" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] \
      || die 2 "unknown version '$want': give a release X.Y.Z or a line pinned in $here/versions.txt ($(awk '!/^#/ && NF {printf "%s ", $1}' "$here/versions.txt"))"
    release="$want"
  fi
}

# oracle_prepare: builds target/cnxsim-oracle-1.jar when missing or older than
# its sources, and resolves target/classpath-$release.txt when missing (Maven
# downloads into ~/.m2 once). Sets jar and cpfile.
oracle_prepare() {
  jar="$here/target/cnxsim-oracle-1.jar"
  cpfile="$here/target/classpath-$release.txt"
  if [ ! -f "$jar" ] || [ -n "$(find "$here/src" "$here/pom.xml" -newer "$jar" 2>/dev/null | head -1)" ]; then
    command -v mvn >/dev/null || die 1 "mvn not found: the launcher jar $jar is not built (scripts/bootstrap test installs maven and builds it)"
    (cd "$here" && mvn -B -q -Dstyle.color=never package) >&2 || die 1 "building the launcher failed (mvn package in $here)"
  fi
  if [ ! -s "$cpfile" ]; then
    command -v mvn >/dev/null || die 1 "mvn not found and Apache Pulsar $release is not resolved yet ($cpfile)"
    echo "run-broker: resolving Apache Pulsar $release with Maven (once; cached in $cpfile)" >&2
    (cd "$here" && mvn -B -q -Dstyle.color=never dependency:build-classpath -Dpulsar.version="$release" \
        -Dmdep.outputFile="$cpfile.part") >&2 \
      || { rm -f "$cpfile.part"; die 1 "Maven could not resolve org.apache.pulsar:pulsar-broker:$release (see the lines above; README.md here lists what this machine's registry serves)"; }
    mv "$cpfile.part" "$cpfile"
  fi
}
