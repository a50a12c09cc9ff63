"""Development tools the appliance never imports: the physically based renderer (POV-Ray) and model
training.  The controller may import synth; synth imports rules and vision, never the controller."""
