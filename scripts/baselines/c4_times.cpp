// Times Christophe Steininger's Connect Four solver `c4` position by position, for `scripts/bench.py --c4`
// (docs/performance.md).
//
// His solver (https://github.com/ChristopheSteininger/c4, AGPL-3.0) is built outside this repository; this file
// only calls it, with his settings (src/solver/settings.h: the board, the threads, the table). From the folder of
// his sources, with the flags of his CMake build (Release, MODE=OPTIMISE):
//
//     g++ -std=c++20 -Wall -O3 -flto -DNDEBUG -I src PATH/TO/scripts/baselines/c4_times.cpp
//         src/solver/*.cpp src/solver/parallel/*.cpp src/solver/util/*.cpp -pthread -o c4_times
//
// (one command).
//
// Reads positions as Pons' solver does, one move string a line on stdin (columns 1 to 7, the first player first;
// an empty line is the empty board), and writes one line a position: the strong score (positive when the side to
// move wins, Pons' scale, as his tests read Pons' sets), the nodes searched by all threads, then the CPU time of the
// solve (CLOCK_PROCESS_CPUTIME_ID: every thread of the process, the clock of Python's time.process_time) and its
// wall time, both in nanoseconds. One solver answers every line, its table kept from one position to the next, as
// his tests do within a file. Its settings line goes to stderr first. A move string that is not a position is
// refused on stderr with exit status 2.
#include <time.h>

#include <iostream>
#include <string>

#include "solver/position.h"
#include "solver/settings.h"
#include "solver/solver.h"

static long long nanoseconds(clockid_t clock) {
    timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static bool read_position(const std::string &line, Position &pos) {
    for (char c : line) {
        int col = c - '1';
        if (col < 0 || col >= BOARD_WIDTH || pos.is_game_over() || !pos.is_move_valid(col)) {
            return false;
        }
        pos.move(col);
    }
    return !pos.is_game_over();
}

int main() {
    Solver solver{};
    std::cerr << "Steininger's c4: " << solver.get_settings_string() << std::flush;
    std::string line;
    for (int number = 1; std::getline(std::cin, line); number++) {
        Position pos{};
        if (!read_position(line, pos)) {
            std::cerr << "line " << number << ": \"" << line << "\" is not a position (an invalid move, or a game over)" << std::endl;
            return 2;
        }
        unsigned long long nodes = solver.get_merged_stats().get_num_nodes();
        long long cpu = nanoseconds(CLOCK_PROCESS_CPUTIME_ID), wall = nanoseconds(CLOCK_MONOTONIC);
        int score = solver.solve_strong(pos);
        cpu = nanoseconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
        wall = nanoseconds(CLOCK_MONOTONIC) - wall;
        std::cout << score << ' ' << solver.get_merged_stats().get_num_nodes() - nodes << ' ' << cpu << ' ' << wall << std::endl;
    }
    return 0;
}
