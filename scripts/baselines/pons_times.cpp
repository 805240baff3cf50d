// Times Pascal Pons' Connect Four solver position by position, for `scripts/bench.py --pons` (docs/performance.md).
//
// His solver (https://github.com/PascalPons/connect4, AGPL-3.0) is built outside this repository; this file only
// calls it. From the folder of his sources:
//
//     g++ --std=c++11 -W -Wall -O3 -DNDEBUG -I . PATH/TO/scripts/baselines/pons_times.cpp Solver.cpp -o pons_times
//
// Reads positions as his c4solver does, one move string a line on stdin (columns 1 to 7, the first player first),
// and writes one line a position: the score (his: positive when the side to move wins), the nodes searched, then
// the CPU time of the solve (CLOCK_PROCESS_CPUTIME_ID, the clock of Python's time.process_time) and its wall time,
// both in nanoseconds. Unlike his c4solver it loads no opening book: every position is searched. Like his
// c4solver, one solver (one transposition table of 2^24 entries) answers every line, its table kept from one
// position to the next. A move string that is not a position is refused on stderr with exit status 2.
#include <time.h>

#include <iostream>
#include <string>

#include "Solver.hpp"

using GameSolver::Connect4::Position;
using GameSolver::Connect4::Solver;

static long long nanoseconds(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

int main() {
  Solver solver;
  std::cerr << "Pons' solver: " << Position::WIDTH << "x" << Position::HEIGHT << " (columns x rows), no book" << std::endl;
  std::string line;
  for (int number = 1; std::getline(std::cin, line); number++) {
    Position position;
    if (position.play(line) != line.size()) {
      std::cerr << "line " << number << ": \"" << line << "\" is not a position (an invalid move, or a game over)" << std::endl;
      return 2;
    }
    unsigned long long nodes = solver.getNodeCount();
    long long cpu = nanoseconds(CLOCK_PROCESS_CPUTIME_ID), wall = nanoseconds(CLOCK_MONOTONIC);
    int score = solver.solve(position);
    cpu = nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    wall = nanoseconds(CLOCK_MONOTONIC) - wall;
    std::cout << score << ' ' << solver.getNodeCount() - nodes << ' ' << cpu << ' ' << wall << std::endl;
  }
  return 0;
}
