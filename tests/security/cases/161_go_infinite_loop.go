// expect-outcome: timeout|cpu_limit
// limits: {"wall_time_s": 1, "cpu_time_s": 30}
// why: a busy loop in every goroutine the runtime schedules (GOMAXPROCS of them); the supervisor's wall-clock timer kills the program at wall_time_s.
package main

func main() {
	for i := 0; i < 8; i++ {
		go func() {
			for {
			}
		}()
	}
	for {
	}
}
