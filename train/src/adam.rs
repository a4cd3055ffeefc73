//! Adam with decoupled weight decay (AdamW), over a flat slice of weights.

/// The optimiser's settings and moment estimates for one weight vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    /// First-moment decay.
    pub beta1: f64,
    /// Second-moment decay.
    pub beta2: f64,
    /// Added to the root of the second moment.
    pub epsilon: f64,
    /// Decoupled weight decay per step, relative to the learning rate.
    pub weight_decay: f64,
    /// Steps taken (for the bias corrections).
    pub steps: u64,
    /// First moments.
    pub m: Vec<f64>,
    /// Second moments.
    pub v: Vec<f64>,
}

impl Adam {
    /// Fresh moments for `len` weights, with the usual 0.9 / 0.999.
    pub fn new(len: usize, weight_decay: f64) -> Adam {
        Adam {
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
            weight_decay,
            steps: 0,
            m: vec![0.0; len],
            v: vec![0.0; len],
        }
    }

    /// One step of size `rate` along `grad`, weight `i` kept within
    /// `-clip..=clip` afterwards.
    pub fn step<W: Weight>(&mut self, weights: &mut [W], grad: &[W], rate: f64, clip: f64) {
        assert_eq!(weights.len(), self.m.len());
        assert_eq!(grad.len(), self.m.len());
        self.steps += 1;
        let c1 = 1.0 - self.beta1.powi(self.steps.min(i32::MAX as u64) as i32);
        let c2 = 1.0 - self.beta2.powi(self.steps.min(i32::MAX as u64) as i32);
        for (((w, g), m), v) in weights.iter_mut().zip(grad).zip(&mut self.m).zip(&mut self.v) {
            let g = g.to_f64();
            *m = self.beta1 * *m + (1.0 - self.beta1) * g;
            *v = self.beta2 * *v + (1.0 - self.beta2) * g * g;
            let mut x = w.to_f64() * (1.0 - rate * self.weight_decay);
            x -= rate * (*m / c1) / ((*v / c2).sqrt() + self.epsilon);
            *w = W::from_f64(x.clamp(-clip, clip));
        }
    }
}

/// A float type that Adam can update.
pub trait Weight: Copy {
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}

impl Weight for f32 {
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}

impl Weight for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_minimum_of_a_bowl_and_respects_the_clip() {
        // f(w) = (w0 - 3)^2 + (w1 + 1)^2
        let mut w = [0.0f64, 0.0];
        let mut adam = Adam::new(2, 0.0);
        for _ in 0..2000 {
            let grad = [2.0 * (w[0] - 3.0), 2.0 * (w[1] + 1.0)];
            adam.step(&mut w, &grad, 0.05, 10.0);
        }
        assert!((w[0] - 3.0).abs() < 0.01 && (w[1] + 1.0).abs() < 0.01, "{w:?}");
        let mut clipped = [0.0f32];
        let mut adam = Adam::new(1, 0.0);
        for _ in 0..500 {
            adam.step(&mut clipped, &[-1.0], 0.1, 2.0);
        }
        assert_eq!(clipped[0], 2.0);
    }
}
