"""The lab's picture: scene, layout, labels, legend, drawing, and the thread's pictures."""
