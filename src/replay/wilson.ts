/**
 * Wilson score interval for a binomial proportion (95 % by default). Unlike the normal
 * approximation it stays inside [0, 1] and is meaningful at 0/n and n/n, which is exactly where
 * small replay runs land.
 */
export function wilsonInterval(successes: number, trials: number, z = 1.959964): {low: number; high: number} {
  if (trials <= 0) return {low: 0, high: 1}
  const p = successes / trials
  const z2 = z * z
  const denominator = 1 + z2 / trials
  const centre = (p + z2 / (2 * trials)) / denominator
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator
  return {low: Math.max(0, centre - half), high: Math.min(1, centre + half)}
}
