"""What the tests and the benchmarks both use: the test server, the coverage oracles,
the class grid and the classroom load. Neither imports the other.
"""
