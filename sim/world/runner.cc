#include "sim/world/runner.h"

namespace redsim::world {

void SimRunner::spawn(std::string name, std::function<void(ClientEnv&)> main, Micros start_at) {
  world_.spawn_process(
      std::move(name), [main = std::move(main)](ProcessEnv& env) { main(env); }, start_at);
}

lock::Reply SimRunner::command(const lock::Argv& argv) {
  auto session = world_.server().connect();
  return world_.server().execute(*session, argv);
}

}  // namespace redsim::world
