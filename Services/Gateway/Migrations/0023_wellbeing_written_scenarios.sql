-- A practice scenario a model wrote for the user is kept with the simulation (wellbeing.simulation_started v2).
ALTER TABLE wellbeing_simulations ADD COLUMN scenario jsonb;
ALTER TABLE wellbeing_simulations ADD COLUMN written_by text NOT NULL DEFAULT 'authored';
