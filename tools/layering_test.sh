#!/usr/bin/env bash
# The library targets keep their layers (README, "Layers"): configures the
# source tree in a scratch directory with `cmake --graphviz` (libraries only:
# no executables, no external libraries), then fails when
#   - a library of the graph is not placed in a layer below, or a layer
#     names a library the graph lacks (a renamed or removed target);
#   - a library links one of its own layer or of a layer above it.
# A new library target joins a layer here and the README's diagram.
# Usage: layering_test.sh CMAKE GENERATOR SOURCE_DIR
set -euo pipefail
cmake=$1 generator=$2 src=$3

# Bottom first. Each library may link only libraries of lower layers.
layers=(
  # leaves: Prng, hashing, Ppm, SHA1, split_args; Reply and the RESP codec
  "redsim_base redsim_resp"
  # one fake Redis; the Env port (lock/env.h, lock/errors.h, lock/zk_client.h,
  # header-only); one ZooKeeper node as a state machine (sim/world/zk)
  "redsim_sim redsim_env redsim_zk"
  # the locks against the port; the engine and the real-Redis Env that
  # implement it; the real-ZooKeeper ZkClient; the difftest, redsim server and the redis-server harness
  "redsim_lock redsim_world redsim_hiredis redsim_zookeeper redsim_difftest redsim_server_lib
   redsim_redis_server_process"
  # the explorer and the scenario catalogue: above the engine, naming locks
  "redsim_explore redsim_scenarios"
  # the public test harness and the CLI
  "redsim_testing redsim_cli_lib"
  # the bug zoo's entries (props/zoo): users' locks written on the harness
  "redsim_zoo"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/CMakeGraphVizOptions.cmake" <<'EOF'
set(GRAPHVIZ_EXECUTABLES FALSE)
set(GRAPHVIZ_EXTERNAL_LIBS FALSE)
set(GRAPHVIZ_GENERATE_PER_TARGET FALSE)
set(GRAPHVIZ_GENERATE_DEPENDERS FALSE)
EOF
if ! "$cmake" -S "$src" -B "$tmp" -G "$generator" -DREDSIM_TESTS=ON -DREDSIM_BENCH=OFF \
  --graphviz="$tmp/targets.dot" > "$tmp/configure.log" 2>&1; then
  cat "$tmp/configure.log"
  exit 1
fi

declare -A layer_of
for i in "${!layers[@]}"; do
  for lib in ${layers[$i]}; do layer_of[$lib]=$i; done
done

status=0
# Nodes: "node3" [ label = "redsim_sim\n(redsim::sim)", shape = octagon ];
mapfile -t libs < <(sed -n 's/^ *"node[0-9]*" \[ label = "\([^"\\]*\).*/\1/p' "$tmp/targets.dot" | sort -u)
declare -A in_graph
for lib in "${libs[@]}"; do
  in_graph[$lib]=1
  if [[ -z ${layer_of[$lib]+x} ]]; then
    echo "library $lib is in no layer (add it to tools/layering_test.sh and the README)"
    status=1
  fi
done
for lib in "${!layer_of[@]}"; do
  if [[ -z ${in_graph[$lib]+x} ]]; then
    echo "layer list names $lib, which is not a library of the build"
    status=1
  fi
done
# Edges: "node3" -> "node0"  // redsim_sim -> redsim_base
edges=0
while read -r from to; do
  edges=$((edges + 1))
  [[ -n ${layer_of[$from]+x} && -n ${layer_of[$to]+x} ]] || continue
  if ((layer_of[$from] <= layer_of[$to])); then
    echo "$from (layer ${layer_of[$from]}) links $to (layer ${layer_of[$to]}): not a lower layer"
    status=1
  fi
done < <(sed -n 's/^ *"node[0-9]*" -> "node[0-9]*".*\/\/ \([^ ]*\) -> \([^ ]*\)$/\1 \2/p' \
  "$tmp/targets.dot")
if ((${#libs[@]} == 0 || edges == 0)); then
  echo "no libraries or no links read from the graph: has cmake's graphviz format changed?"
  status=1
fi
echo "${#libs[@]} libraries, $edges links checked against ${#layers[@]} layers"
exit $status
