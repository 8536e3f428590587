// Bounded exhaustive exploration: every schedule of a small world, up to a
// bound, with a sleep-set partial-order reduction.
//
//   world::ExplorePlan plan = world::generate_plan(lock::LockKind::kGetDel, 7, 2);
//   plan.strategy = world::parse_strategy("exhaustive:2");
//   world::ExhaustiveResult r = world::explore_exhaustive(plan);
//   // r.counterexample: the choices of a failing schedule (replay with
//   //   plan.strategy.schedule = *r.counterexample; world::run_plan(plan));
//   // otherwise "no violation in all r.schedules schedules up to bound 2".
//
// What a schedule is. A world is deterministic given its seed except at its
// choice points, which under the exhaustive strategy a Chooser answers
// instead of the seed:
//   - ties: the events due at the same virtual microsecond (message
//     deliveries, timer firings, task wake-ups, fault events) may run in any
//     order, except that one connection's messages in one direction stay
//     FIFO; option i runs the i-th awake one (schedule order);
//   - latency: each one-way message latency is the plan's latency_min_us
//     (option 0) or latency_max_us (option 1), when they differ;
//   - faults of the plan's fixed set, at each fault point of a client (every
//     Env call): a crash (when crash_ppm > 0), a process pause and a task
//     pause of pause_max_us, cut to the stall budget (when pause_ppm /
//     task_pause_ppm > 0); and at each command sent (Network::round_trip): a
//     connection reset (when loss_ppm > 0; options 1 and 2 are "before the
//     command ran" and "after it ran" when loss_executed_ppm allows both,
//     otherwise option 1 is the one it allows), then a lost reply (when
//     lost_reply_ppm > 0 and, under a stall budget, the caller's timeout
//     fits the budget left, as the random draw is kept); option 0 is "no
//     fault". Faults outside this set (partitions, message delays, clock
//     jumps, server faults) keep their seeded draws.
// A schedule is the sequence of options taken, in the order the choice points
// are met; every point past a given prefix takes option 0. A run is a pure
// function of (plan, schedule), so a schedule replays from its printed text.
//
// The bound: a latency or fault option other than 0 is a deviation, and a
// search with bound B runs every schedule with at most B deviations (delay
// bounding in the sense of Emmi, Qadeer, Rakamaric, "Delay-bounded
// scheduling", POPL 2011: few deviations from a default find most bugs).
// Tie orders are not bounded: every distinct order of same-time events is
// run, up to the reduction below. "No violation in all N schedules up to
// bound B" thus means: for this plan (its clients, attempts, think and work
// times, lease), every interleaving of same-time events combined with every
// choice of at most B extreme latencies and injected faults keeps the checked
// properties. Timings between the extremes are not covered. The small
// worlds (generate_small_plan) take a latency of at least 1 us, not 0: a
// message never arrives in the microsecond it was sent, which lets whole
// microseconds of independent events run in one order (below).
//
// The order of the search, fault placements first (search_schedules). A
// bug that needs one fault at the right call (a crash between SETNX and
// EXPIRE, a lost reply to a watchdog's renewal) is one deviation away from
// the default schedule, but a depth-first search backtracks at the deepest
// point first: it ran every tie order and every pair of late deviations
// before it moved a deviation to an early call (setnx-expire needed a
// median of 2,114 schedules). So the search runs in two phases:
//   1. placements: the default schedule, then every schedule with exactly
//      one deviation and every tie at option 0, in the order the points
//      are met (earliest first; a point's options in turn). This is "each
//      fault of the fixed set tried at each decision point, fewest faults
//      first", stopped at one fault: pairs would cost about P * P / 2 runs
//      (P: the default run's deviation options) before phase 2 starts
//      (get-del seed 3, a two-pause race: schedule 13,569 with pairs, 960
//      with single placements, 725 with no phase 1). One family of
//      multi-deviation schedules is placed too, because a holder that
//      outlives its lease needs stalls that add up (blind-del: two 30 ms
//      pauses inside a 100 ms lease): after a single placement that is a
//      stall (a process or task pause), its burst, the same stall again at
//      the same process's next choice point of that kind (ChoicePoint's
//      kind and owner), one run per added stall, up to `bound` stalls. A
//      burst costs at most bound - 1 runs per stall placement, not P.
//      Bursts right after their single placement (not after all singles):
//      get-del at bound 3, seeds 1-20, 16 found in a median of 45
//      schedules, against 14 and 171.
//   2. the whole bounded space, depth first as described above. Its runs
//      whose schedule phase 1 ran (every tie at option 0, at most `bound`
//      deviations) are not run again: phase 1 kept their choice points,
//      which is all the backtracking needs, since a run is a pure function
//      of its schedule.
// Soundness: phase 2 alone is the search whose argument follows; phase 1
// only judges some of its schedules earlier and adds none. So a search that
// completes has judged every schedule of phase 2 exactly once, and the N of
// "no violation in all N schedules" is the same N the depth-first search
// alone gives (phase 1's schedules plus phase 2's other unpruned ones).
// A counterexample's count ("schedules to the counterexample") is the
// number of distinct schedules judged before and with it.
// The reduction: sleep sets (Godefroid, "Partial-Order Methods for the
// Verification of Concurrent Systems", LNCS 1032, 1996, ch. 5), not DPOR
// (Flanagan, Godefroid, POPL 2005). Sleep sets need only a static
// independence relation and no backtracking-set bookkeeping across runs: the
// sleep set at each tie is the awake events ordered before the chosen one,
// which a replayed prefix reconstructs exactly, so the DFS stays a plain
// enumeration of choice sequences. After an event runs, the sleeping events
// dependent on it wake; a tie whose events are all asleep ends the run as
// redundant (counted as pruned, not as a schedule, and not judged).
// Independence (Scheduler::independent). Two events are independent when
// running them in either order from the same state reaches the same state
// (up to the order of same-microsecond history records) and neither enables
// or disables the other. The relation, with the argument for each case:
//   1. Client-side events of two different processes (a reply or push
//      reaching a process, a timer, a task's wake-up, a fault at a fault
//      point). Each touches only its process: its fibers, clock, links'
//      client ends, random streams, pause and stall budget. What processes
//      share is the servers, reached only through server-side events.
//   2. A command (a request, SUBSCRIBE/UNSUBSCRIBE or a connection close
//      reaching a server) and a client-side event of another process. The
//      command reads and writes the server's state and its sender's link and
//      task (to schedule the reply, to mark an orphaned command); its
//      publishes schedule pushes on subscribers' links (their server-to-
//      client ends and arrival times). A client-side event writes its own
//      links' client-to-server ends and never server state, PROVIDED the
//      world has no message delays (their draws would interleave on one
//      link's stream) and no partitions (a partition starting at a fault
//      point resets the process's sessions at once, dropping its
//      subscriptions: case 14 keeps what of this case holds with them).
//      Under those conditions the two touch disjoint state.
//   3. Two commands on different servers: disjoint servers, each scheduling
//      on its own links. Two commands on one server whose footprints
//      (Footprint, from the command table in scheduler.cc) share no key and
//      not both touch pub/sub: Redis runs a command atomically on its keys;
//      lazy expiry deletes only the key looked at; the key-state notes the
//      world records before and after each command change only for keys
//      that changed, which were the command's own or expired by time alone.
//      This case also holds for two commands of one process on two
//      connections (a Redlock client's requests to five servers). A close
//      touches no key; it touches pub/sub only on a process's pub/sub
//      connection (dropping a command connection's session drops no
//      subscription, and its WATCHes are its own). A script
//      (EVAL, EVALSHA, FCALL) counts as touching every key and pub/sub: a
//      standalone server does not hold it to its declared KEYS (until it
//      ran: case 16). Commands
//      outside the table (MULTI/EXEC, WATCH, KEYS, SCAN, CONFIG, SCRIPT,
//      FLUSHALL, blocking ones, WAIT, ...) have no footprint and are
//      dependent on every event, as are server-side events that are not
//      commands (replication, server faults, the active expiry cycle, WAIT
//      timers). Cases 2 and 3 need servers that draw nothing per command
//      and no replicas (the replication stream keeps the order of
//      commands); with replicas or message delays every server-side event
//      is dependent on every event, as before. Server crashes and server
//      clock jumps make the relation coarser (case 15).
//   4. Two client-side events of one process that each touch only the
//      state of one task, different tasks, and run no code: a plain reply
//      reaching a task's own connection (no on_arrival hook), a sleep's or
//      an Event wait's timer, a call's timeout, a task pause's end
//      (Scheduler::at_task, the `task` of at_message). Each reads whether
//      its task still waits with its token, writes that task's reply or
//      call end and state, and schedules that task's run at the same
//      microsecond; both read, never write, the process's paused and dying
//      flags, and a paused process holds both in arrival order, replayed in
//      one event when the pause ends. Run in either order they leave the
//      same state up to the scheduling order of the two tasks' runs (and of
//      the held deliveries), which are themselves events due at one
//      microsecond: every order of those is run from either state, so the
//      traces from the two states are the same.
//      Runs and commands, per task (Flanagan & Godefroid, POPL 2005, use the
//      same notion of dependence between the transitions of threads; we
//      keep sleep sets and make the relation finer). A task's run (its
//      fiber, Scheduler::at_task with runs_code) names its task too; a
//      request names its connection's task (the pub/sub connection's: 0,
//      the whole process). An event that turned out to reach beyond its
//      task is widened to the whole process when judged
//      (Scheduler::note_process_wide): an Event signal, a wake-up of
//      another task, a task's start or end, a process pause, a delivery or
//      run held by a pause, a stall noted against the budget, a new
//      connection, a teardown (the process ended or crashed). Then, under
//      the conditions of case 2: a command sent by task A and a client-side
//      event of another task B of the same process commute (the command
//      reads A's state and writes server state and A's link; an event of B
//      writes B's state and links and reaches A only when widened); and two
//      client-side events of tasks A != B of one process commute when at
//      most one of them is a run (a timer or delivery touches its task
//      only; a narrow run touches its task and the process's memory, which
//      a timer or delivery does not read). A run's extent is known once it
//      ran, so a sleeping run counts as the whole process unless the
//      sibling run that took it first, from the same prefix, stayed narrow:
//      the search carries that per choice point (Strategy::narrow, printed
//      in a schedule as "17=2/1"); from the same state the same run does
//      the same thing, and every event that runs while it sleeps is
//      independent of it, so nothing it reads has changed (the usual
//      argument for dynamic dependence).
//   5. Two runs of different tasks of one process, both narrow, only with
//      Strategy::task_runs_commute: sound for code whose tasks share memory
//      only next to an operation that widens the run (data-race freedom
//      with respect to the world's visible operations, as in VeriSoft,
//      Godefroid, POPL 1997). run_plan sets it for the ReentrantLock family
//      with one task per client: its lock task and watchdog share the
//      Watchdog record, whose `stopped` is written with a signal of its
//      Event (stop()) or as the watchdog task ends, and read after a wait
//      or when a later acquisition looks at it; the owners_ map and the
//      process's random stream are the lock task's alone; a connection's
//      streams are seeded by (task, server), not by creation order. The
//      public harness leaves it off: a user's lock may share plain memory
//      between its tasks (the zoo's watchdogs do).
//   6. A task's end, only with Strategy::task_runs_commute
//      (Scheduler::note_task_end; any other world keeps it process-wide).
//      The Env has no join: another task learns that a task ended only
//      through memory that task wrote. Under case 5's premise that memory
//      is written next to a widening operation; for the ReentrantLock
//      family the only such write at a task's end was the watchdog's
//      `stopped = true`, which now goes through Watchdog::stop() (it sets
//      `stopped` and signals the Event, widening that run, exactly when
//      `stopped` changes; a watchdog stopped by its lock task writes
//      nothing more), and an unlock latch's detached DEL task writes no
//      memory at all. The end's own record (kTaskEnd) and the fiber's
//      release are the task's. So the run in which such a task ends is
//      narrow unless it did something else that widens. Measured: the
//      watchdog's end against the lock task's next run was the largest
//      family of orders left in reentrant's search (1,725 of its first
//      3,000 runs started there).
//   7. Opening a connection inside a task's run (Scheduler::note_new_link).
//      It writes the process's and the server's lists of links and takes
//      the server's next client id, which only another connection's
//      opening reads or writes; a reply, a timer, a command on an
//      existing connection and a run that opens none read none of them.
//      So a run that opened a connection stays narrow, and carries a
//      `links` flag: two client-side events of one process are dependent
//      when both may open one (a sleeping run may, since its sibling only
//      told whether it stayed narrow; the run just made is known). An
//      opening outside a task's run is process-wide, as before. Two
//      different processes opening connections at one microsecond take
//      client ids in either order, as before (case 1): the ids are in no
//      checked property's history.
//   8. A delivery that touches no state (Scheduler::kNoTask): the reply of
//      an UNSUBSCRIBE or of a resubscription's SUBSCRIBE, which nobody
//      waits for (its action is empty; it only keeps its place in its
//      connection's FIFO, which the scheduler keeps apart from the sleep
//      sets). It writes only an unchecked history record (kMessageLost
//      when its link broke, kMessageDelivered when messages are recorded),
//      so it commutes with every event of a process. Found by logging the
//      ties the search reorders on reentrant seed 3 at bound 0 (the log
//      named each event by kind, process and task): the lock task's
//      UNSUBSCRIBE reply against its own EVAL's reply and the run that
//      reply wakes were 6,340 of 38,421 runs, high in the tree.
//   9. A run that ended its process (main returned: Processes::finish_task
//      calls Scheduler::note_process_end, and the teardown stops every other
//      task) and a timer or plain reply of another task T of that process
//      (case 4's events: a reply on T's own connection without an
//      on_arrival hook, a sleep's, an Event wait's or a call's timer, a
//      task pause's end). Such an event finds T blocked in an Env call
//      (it is stale otherwise, and a no-op in either order), writes T's
//      reply or call end, marks T ready and schedules T's run. The
//      teardown resumes every unfinished task that is not running, ready
//      or blocked alike, and Processes::suspend throws ClosedError as soon
//      as the fiber is back, before the call reads the reply or its end:
//      T unwinds the same way in both orders. What the ending run did
//      before main returned cannot reach T's call: T waits on a call's
//      token, which only that call's reply, timer or link break wakes (an
//      Event signal or another wake-up with an old token does nothing in
//      either state), and a run that pauses its process ends there, so
//      it does not also end it. The two orders differ only in (a) the
//      event's record: a reply that comes after the teardown finds its
//      link closed (kMessageLost, or nothing), one that came before leaves
//      kMessageDelivered when messages are recorded: no checker reads
//      either (checkers.cc, lock_key_checkers.cc read lock events,
//      commands, key states, process ends, crashes, pauses and restarts);
//      and (b) T's run, pending after the teardown in one order only,
//      which finds the process dying and returns (Processes::run_task): a
//      stutter step that touches nothing and runs no code, so the two
//      states have the same futures up to that step and the same checked
//      histories. The ending is only known once the run ran (a run asleep
//      has no ended_task), so the order "end first" keeps T's event asleep
//      and is cut as redundant. Before this case, each of reentrant's
//      closing ties (the last unlock's run against the unlock latch's DEL
//      reply or the watchdog's renewal reply) was three judged runs.
//  10. Two sessions' own subscription changes on one server (Footprint::
//      subscriptions_only: SUBSCRIBE, UNSUBSCRIBE, their P and S forms, and
//      the close of a pub/sub connection, which removes all of its
//      session's subscriptions). Each writes its own session's set and
//      the server's subscriber lists of its channels (an addition appends
//      the session, a removal takes it out) and publishes nothing, and a
//      reply reports only its own session's count. A removal and another
//      session's addition or removal leave the same lists in either order;
//      two additions of different channels touch different lists. Two
//      additions of one channel append in a different order, which a later
//      PUBLISH's push order (and the order of its latency choice points)
//      would show: they stay dependent, as does anything that publishes
//      (PUBLISH, SPUBLISH, scripts). The pub/sub connection sends nothing
//      else (its task is 0: every event of its process is dependent on it
//      otherwise), and a subscribed session has no keys, WATCHes or MULTI.
//      Found by the same log: the other client's pub/sub close against a
//      SUBSCRIBE or UNSUBSCRIBE was 1,584 of seed 3's runs.
//  11. A transaction's commands (command_footprint). WATCH reads its keys'
//      expiry and appends its session to their watcher lists: its keys are
//      its footprint. MULTI sets its own session's flag; UNWATCH and
//      DISCARD (and EXEC's end) take their session out of its keys'
//      watcher lists and clear its own dirty mark (sim/cmd_multi.cc,
//      unwatch_all): another session's write to such a key marks the
//      watchers it finds, so run first it marks a session that the removal
//      then clears, and run second it finds none: the same state either
//      way; another session's WATCH appends itself, which a removal of
//      this one leaves in place. So these three touch no key. A command
//      queued inside MULTI only joins its session's queue, which its
//      argv's footprint over-approximates. EXEC runs the queue (any key,
//      publishing) and reads the watched keys' dirty marks and expiry: it
//      counts as a script (any key, pub/sub). Found on watch-unlock, whose
//      release (WATCH, GET, MULTI, DEL, EXEC) had no footprint and so was
//      dependent on every event, the other client's timers included.
//  12. SCRIPT LOAD. It compiles its body into the script cache when its
//      SHA is not there, and touches no key and no pub/sub. What reads or
//      fills that cache is a script (EVAL caches its body too, EVALSHA
//      looks it up): a load and an any-key footprint are dependent. Two
//      loads commute: the cache maps a body's SHA to that body, so adding
//      two entries, or the same one twice, gives the same cache in either
//      order, and each reply is its own body's SHA. (SCRIPT FLUSH and the
//      other subcommands keep no footprint.) Found on script-lock.
//  13. A FencedResource's writes (Strategy::fence_writes; the harness
//      sets it unless RunOptions::fenced_writes says the sections write
//      none). The resource is memory every process shares: its highest
//      token decides the next write's verdict, so two writes of different
//      processes do not commute, and case 1 (client-side events of two
//      processes are independent) is wrong for the runs that write.
//      ProcessEnv::record_fenced_write notes the write on the running
//      event; a run that wrote is dependent on another process's run that
//      wrote or may write (a run asleep may, unless its sibling run from
//      the same prefix was narrow: a run that writes a fence is not
//      counted narrow). Only runs write (timers and deliveries run no
//      code), and no server-side event reads the resource. For the ties
//      that need no choice (below), a client-side event and another
//      process's run are linked too: the event may start a run of its
//      process that writes. Before this case the yardstick searched the
//      fenced zoo entries without any reduction (fenced-script proved on
//      1 of 5 seeds), and the harness's default reduce = true ran one
//      order of two writes only: a user's lock whose stale writes a
//      search should see rejected was (unsoundly) judged on one order.
//  14. Partitions (Scheduler::set_server_faults' sessions_reset). A
//      partition starts at a fault point, inside a task's run: it breaks
//      its process's links to one server (Network::start_partition,
//      break_link), which on that server does what a close of each link
//      does when it arrives (the session is reset: its WATCHes, MULTI
//      state and subscriptions go; the link leaves the server's list);
//      the rest (the link broken, its calls failed, a pub/sub link
//      resubscribed later) is its process's own. Cases 3, 10 and 11 argue
//      which commands commute with a close: every command but one that
//      publishes (PUBLISH, SPUBLISH, a script, EXEC:
//      Footprint::publishes), since a removal of a session's
//      subscriptions commutes with another session's (un)subscription,
//      and a reset of a WATCH with another session's write to the key. So
//      with partitions requests keep their footprints, and a client-side
//      event that may partition is dependent on another process's
//      publishing command. Which events may: a partition widens its run
//      (start_partition notes it process-wide; before, only the stall
//      budget's note did, and a world without a budget kept such a run
//      narrow, wrongly, against its process's other tasks' replies), so
//      an event known narrow started none; an event of the whole process
//      (task 0), which a run asleep and not known narrow counts as, may.
//      The window list a partition adds to is read only for its own
//      process (Network::unreachable). What it schedules (the calls'
//      failures, its heal, the resubscription) comes after its
//      microsecond. Before this case every request of a world with
//      partitions was dependent on every event: Redlock's five SETs (and
//      DELs) to five servers at one microsecond ran in all 5! orders
//      (redlock-validity seed 2: cut at 200,000 runs; now proved in
//      1,216 schedules).
//  15. Server crashes and server clock jumps (set_server_faults'
//      commands_draw and commands_break_links). After each command its
//      server draws from its own streams (Nodes::after_command: a clock
//      jump, a crash): two commands on one server are dependent (which one
//      the crash follows is their order), two on different servers draw
//      from different streams and touch different servers, links and
//      snapshots, and commute as in case 3. A crash breaks every process's
//      links to its server (their client ends, which any client-side
//      event that sends or receives on them reads): with crashes, a
//      command is dependent on every client-side event (no case 2); a
//      clock jump touches only its server's clock, so case 2 stays. A
//      crashed server's restart, an event without a footprint (dependent
//      on all), comes server_down_min later: footprints are kept only when
//      that is >= 1 us, so that a server-side event still starts no event
//      of its own microsecond ("Ties that need no choice"); otherwise
//      there are none, as before. Failovers need replicas, which still
//      turn footprints off, so a failover rate alone no longer does.
//  16. A script's footprint as it ran (script_footprint, ScriptTrace;
//      the standard dynamic footprint: Flanagan & Godefroid, POPL 2005,
//      judge a transition by what it does at the state it runs from).
//      Before it runs, a script (EVAL, EVALSHA and their _RO forms) counts
//      as any key and pub/sub (case 3). Once run, its footprint is its
//      declared KEYS and the keys of every command it asked to run
//      (redis.call, redis.pcall; refused ones too), each read from the
//      command table as a plain command's is (command_footprint), and
//      pub/sub when one of them publishes. It stays "anything" when one of
//      those commands is not key-addressed (no footprint: KEYS, SCAN,
//      FLUSH*, RANDOMKEY, DBSIZE, TIME, CONFIG, SELECT, an unknown name; or
//      any key), and when the script used what scripts share besides keys
//      (Server::ScriptCallLog::shared: math.random's stream, loadstring's
//      arithmetic sites, a call depth near the limit an earlier overflow
//      raised). The script cache orders EVAL (it fills the cache) with
//      EVALSHA (it reads it) and with SCRIPT LOAD as in case 12; FCALL
//      keeps "anything" (a library's functions may keep state in their
//      upvalues from call to call). Why that footprint is exact at the
//      state it ran from: a script runs atomically, with time frozen, and
//      what it does is a function of its argv, its session (which only
//      its own connection's commands change, FIFO), the script cache, the
//      shared Lua state above, and the values and expiry of the keys its
//      commands read, which are among the keys its commands name. A script
//      that reads key A and then chooses which key B to touch has both A
//      and B in its footprint: it is dependent on every writer of A, so
//      its choice, and its footprint, change only after an event that is
//      dependent on it. So the script that just ran (the event `b` of
//      independent) is judged by its footprint as it ran, which wakes
//      exactly the sleeping events that conflict with what it did.
//      A sleeping script must carry what it does at the state where it
//      sleeps. It sleeps at a tie because a sibling run took it there
//      first from the same prefix, so the same state; from then on every
//      event that ran was independent of it as it then was, none touched
//      its keys or the cache it reads, so it would do the same again (the
//      same argument as for `narrow`, case 4). The search carries one bit
//      of it per option, in the same mask as a run's `narrow` (a command
//      option's bit meant nothing before): set when the sibling's script
//      asked only for keys among its declared KEYS; the script then sleeps
//      as its declared KEYS with pub/sub (it may have published) and its
//      cache flag (Footprint::within). Otherwise, and without the bit, it
//      sleeps as "anything", as before. One bit keeps schedules printable
//      and replayable as they were ("17=2/1"); a script that leaves its
//      KEYS is judged exactly only as the event that ran. Found by the
//      log of reentrant seed 7 at bound 1 (cut at 1,000,000 runs before):
//      a script against the other client's keyed command or the unlock
//      latch's DEL was 2,500 of the 7,987 reorders of its first 3,000
//      runs; with this case it is proved in 34,882 schedules.
//  17. A server that does more than a command's keys say (Footprint::
//      server_effects, Network::server_effects). With notify-keyspace-
//      events on, every keyed command may publish on its key's keyspace
//      and keyevent channels (a read too: its key's lazy expiry publishes
//      "expired"), so a SET of k does not commute with another session's
//      SUBSCRIBE of __keyspace@0__:k; with maxmemory on, whether a write is
//      refused (noeviction) or which keys are evicted before a command (any
//      command, as Redis's processCommand evicts) depends on the memory of
//      every key. Cases 3, 10 and 16 read neither. So each server has one
//      flag, shared by every footprint of a command sent to it, that turns
//      on for good when the server is seen with either setting on (set
//      before the run, or by an earlier CONFIG SET), or when a CONFIG SET
//      is sent to it; from then on its footprints are "anything" (and
//      publish, for case 14). It is on before the first such effect can
//      happen: a setting comes only from the world's own code before the
//      run or from a CONFIG SET, which is sent before it arrives, and
//      footprints made earlier read the flag whenever they are judged. A
//      CONFIG SET has no footprint itself, so it is ordered with every
//      command. Found by review, not by a plan: no lock in the zoo turns
//      either setting on, and their proofs are unchanged.
//      server_effects_test.cc reaches, reduced, both "the notification
//      arrived" and "it did not" for a SET and for a script, with the
//      setting from the start and by CONFIG SET, and both refusals of two
//      writes under maxmemory; each outcome pair was lost before.
// Ties that need no choice (persistent sets, Godefroid 1996, ch. 4;
// combined with sleep sets as in ch. 6). When no message arrives in the
// microsecond it was sent (the plan's latency_min >= 1 us, as
// generate_small_plan sets and the harness applies to every exhaustive
// world: apply_small_world_latency; Scheduler::set_chooser's
// messages_take_time), what can run at the current microsecond t before
// the events due at t is: the other events due at t, and what they start
// at t. A server-side event starts only messages (arriving after t) and no
// event of t; a client-side event starts, at t, only client-side events of
// its own process (a task's run, a crash, a pause, a zero timer), which
// may reach any of its tasks and break its links. So link two due events
// when they are dependent (the relation above, a run counting as its whole
// process since its extent is not known yet), when they are one
// connection direction's (FIFO), or when they belong to one process and
// one of them is client-side (it may start something there that the
// other depends on; a reply nobody waits for, case 8, starts nothing). A
// set of due events closed under these links is persistent: every event
// that can run at t before one of its events is outside it, and
// independent of all of it. The scheduler takes, of the components of the
// links, the one with the fewest awake heads (the earliest head breaks
// ties) and chooses only among those; when it has none (its heads sleep),
// the run is redundant and is cut (explored: persistent set minus sleep
// set, empty). Because the scheduler's clock only moves on when every
// event due at t ran, nothing later can come before them. A world with
// latency 0 does not get this rule (a reply can come back within t, and a
// command could then come in the same microsecond), only the sleep sets.
// Before follow-up 5 the rule took single events only, and judged a
// command of task A alone beside a timer of task B of its process (case
// 4 makes those two independent); but the timer starts B's run, whose
// fault point may crash the process, breaking A's link before the command
// arrives: that order was never run (exhaustive_test.cc,
// AnotherTasksTimerMayCrashTheProcessFirst). The same-process link closes
// that gap.
// Every event's latency and fault choices are its own (a message's latency
// is drawn when it is sent, a fault at its own process's fault point), so
// independent events commute together with their choices: the sleep-set
// theorem (every Mazurkiewicz trace of the bounded space is run at least
// once) holds, and the deviation count of a trace does not depend on its
// linearisation, so the bound and the reduction agree.
// Why this matters: a server-side event was dependent on everything before
// cases 2 and 3, so a watchdog's timer, or any event of one client at the
// microsecond another client's request reached the server, multiplied the
// orders (reentrant could not be searched even at bound 0). Two clients
// contending for one lock key still conflict on that key, as they must.
// Two assumptions, stated: the checkers judge a history by virtual times and
// causality, not by the order two concurrent same-microsecond records were
// appended; and client processes share no memory outside the world but
// its FencedResources (case 13: with fence_writes; the fenced kind's
// storage in explore.cc's run_plan is shared plain memory, so run_plan
// switches the reduction off for it).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/world/schedule.h"

namespace redsim::world {

struct ExplorePlan;

// What one run of a schedule reports to the search.
struct ScheduleRun {
  bool failed = false;  // ignored when pruned
  bool pruned = false;
  std::vector<ChoicePoint> points;
};

struct ExhaustiveResult {
  uint64_t schedules = 0;   // runs completed and judged (the N of "all N schedules")
  uint64_t pruned = 0;      // runs the sleep sets cut short as redundant
  bool complete = false;    // the whole bounded space was run (false: stopped by max_runs)
  uint64_t placements = 0;  // of `schedules`, those phase 1 (placements first) judged
  std::optional<std::vector<uint32_t>> counterexample;  // the first failing schedule's choices
  // Its Strategy::narrow masks (replay it with both: the sleep sets use them).
  std::vector<uint64_t> counterexample_narrow;
};

// The search over choice sequences with at most `bound` deviations, until
// a run fails, the space is exhausted, or `max_runs` runs were made: first
// the placements (every tie at option 0; no deviation, then each single
// deviation, earliest first, a stall followed by its burst), then depth first from the empty
// prefix, backtracking to the deepest choice point with an untried option within the bound (the
// placements' schedules are not run twice). See "The order of the search".
// `run(prefix, narrow)` also gets, per prefix point, the options whose runs
// touched only their own task (ChoicePoint::narrow, from the sibling runs
// before: Strategy::narrow); the one-argument form ignores them (it reduces
// less, never unsoundly).
ExhaustiveResult search_schedules(
    int bound,
    const std::function<ScheduleRun(const std::vector<uint32_t>&, const std::vector<uint64_t>&)>&
        run,
    uint64_t max_runs = 1'000'000);
ExhaustiveResult search_schedules(
    int bound, const std::function<ScheduleRun(const std::vector<uint32_t>&)>& run,
    uint64_t max_runs = 1'000'000);

// The search over `plan` (plan.strategy must be exhaustive; its schedule is
// ignored): every schedule of run_plan(plan) up to plan.strategy.bound.
ExhaustiveResult explore_exhaustive(const ExplorePlan& plan, uint64_t max_runs = 1'000'000);

}  // namespace redsim::world
