// expect-outcome: compile_error|compile_timeout|compile_memory_limit
// compile-limits: {"memory_mb": 512, "wall_time_s": 30}
// why: a type-level bomb: template literal types whose cross product has 10^8 members, and a recursive type that doubles at each level; tsc gives up (union too complex, instantiation too deep) or the compile stage's limits stop it.
type Digit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9";
type Eight = `${Digit}${Digit}${Digit}${Digit}${Digit}${Digit}${Digit}${Digit}`;
type Double<T, N extends unknown[]> = N["length"] extends 64 ? T : Double<[T, T], [...N, unknown]>;
const big: Eight = "00000000";
const deep: Double<string, []> = null as any;
console.log(big, deep);
