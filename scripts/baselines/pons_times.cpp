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
//
// With `-a` (his c4solver's option), every move of a position is valued, as his `Solver::analyze` does (a move that
// wins at once scored without a search, each other move's position solved): the score written is the best move's,
// so it is still the position's score, and the nodes and times are those of the whole analysis.
#include <time.h>

#include <iostream>
#include <string>
#include <vector>

#include "Solver.hpp"

using GameSolver::Connect4::Position;
using GameSolver::Connect4::Solver;

static long long nanoseconds(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int best_of(const std::vector<int> &scores) {
  int best = Solver::INVALID_MOVE;
  for (int score : scores) best = score > best ? score : best;
  return best;
}

int main(int argc, char **argv) {
  Solver solver;
  const bool every_move = argc > 1 && std::string(argv[1]) == "-a";
  std::cerr << "Pons' solver: " << Position::WIDTH << "x" << Position::HEIGHT << " (columns x rows), no book"
            << (every_move ? ", every move valued (-a)" : "") << std::endl;
  std::string line;
  for (int number = 1; std::getline(std::cin, line); number++) {
    Position position;
    if (position.play(line) != line.size()) {
      std::cerr << "line " << number << ": \"" << line << "\" is not a position (an invalid move, or a game over)" << std::endl;
      return 2;
    }
    unsigned long long nodes = solver.getNodeCount();
    long long cpu = nanoseconds(CLOCK_PROCESS_CPUTIME_ID), wall = nanoseconds(CLOCK_MONOTONIC);
    int score = every_move ? best_of(solver.analyze(position)) : solver.solve(position);
    cpu = nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    wall = nanoseconds(CLOCK_MONOTONIC) - wall;
    std::cout << score << ' ' << solver.getNodeCount() - nodes << ' ' << cpu << ' ' << wall << std::endl;
  }
  return 0;
}
